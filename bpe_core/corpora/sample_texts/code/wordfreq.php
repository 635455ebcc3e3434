<?php
// Count how often each word occurs in a text and print the most common ones.

declare(strict_types=1);

/**
 * Read the whole input: a file if a path is given, else standard input.
 */
function readText(?string $path): string
{
    $text = file_get_contents($path ?? 'php://stdin');
    if ($text === false) {
        fwrite(STDERR, "wordfreq: cannot read {$path}\n");
        exit(1);
    }
    return $text;
}

/**
 * @return array<string, int> the lower-cased words and how often each occurs
 */
function countWords(string $text): array
{
    preg_match_all('/\p{L}+/u', $text, $matches);
    $counts = [];
    foreach ($matches[0] as $word) {
        $word = mb_strtolower($word, 'UTF-8');
        $counts[$word] = ($counts[$word] ?? 0) + 1;
    }
    return $counts;
}

$counts = countWords(readText($argv[1] ?? null));
$total = array_sum($counts);
printf("%d words, %d distinct\n", $total, count($counts));

// The most frequent words, ties broken alphabetically.
uksort($counts, fn (string $a, string $b): int => [$counts[$b], $a] <=> [$counts[$a], $b]);

foreach (array_slice($counts, 0, 10, true) as $word => $count) {
    printf("%-15s %6d %6.2f%%\n", $word, $count, 100 * $count / $total);
}
