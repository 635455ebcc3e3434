// Count how often each word occurs in a text and print the most common ones.
import 'dart:convert';
import 'dart:io';

final _word = RegExp(r'\p{L}+', unicode: true);

/// Reads the whole input: a file if a path is given, else standard input.
Future<String> readText(List<String> args) async {
  if (args.isNotEmpty) {
    return File(args.first).readAsString();
  }
  return stdin.transform(utf8.decoder).join();
}

Map<String, int> countWords(String text) {
  final counts = <String, int>{};
  for (final match in _word.allMatches(text)) {
    final word = match[0]!.toLowerCase();
    counts.update(word, (count) => count + 1, ifAbsent: () => 1);
  }
  return counts;
}

/// The most frequent words, ties broken alphabetically.
List<MapEntry<String, int>> topWords(Map<String, int> counts, {int limit = 10}) {
  final ranked = counts.entries.toList()
    ..sort((a, b) {
      final byCount = b.value.compareTo(a.value);
      return byCount != 0 ? byCount : a.key.compareTo(b.key);
    });
  return ranked.take(limit).toList();
}

Future<void> main(List<String> args) async {
  final String text;
  try {
    text = await readText(args);
  } on FileSystemException catch (error) {
    stderr.writeln('wordfreq: ${error.message}: ${error.path}');
    exitCode = 1;
    return;
  }
  final counts = countWords(text);
  final total = counts.values.fold<int>(0, (sum, count) => sum + count);
  print('$total words, ${counts.length} distinct');
  for (final MapEntry(key: word, value: count) in topWords(counts)) {
    final share = (100 * count / total).toStringAsFixed(2);
    print('${word.padRight(15)} ${count.toString().padLeft(6)} ${share.padLeft(6)}%');
  }
}
