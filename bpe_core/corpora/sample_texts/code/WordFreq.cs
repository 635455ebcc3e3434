// Count how often each word occurs in a text and print the most common ones.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;

namespace WordFreq;

public static class Program
{
    private static readonly Regex Word = new(@"\p{L}+", RegexOptions.Compiled);

    /// <summary>Reads the whole input: a file if a path is given, else standard input.</summary>
    private static string ReadText(string[] args) =>
        args.Length > 0 ? File.ReadAllText(args[0]) : Console.In.ReadToEnd();

    /// <summary>Counts the lower-cased words of <paramref name="text"/>.</summary>
    public static Dictionary<string, int> CountWords(string text)
    {
        var counts = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (Match match in Word.Matches(text))
        {
            var word = match.Value.ToLowerInvariant();
            counts[word] = counts.TryGetValue(word, out var count) ? count + 1 : 1;
        }
        return counts;
    }

    public static int Main(string[] args)
    {
        Dictionary<string, int> counts;
        try
        {
            counts = CountWords(ReadText(args));
        }
        catch (IOException error)
        {
            Console.Error.WriteLine($"wordfreq: {error.Message}");
            return 1;
        }

        var total = counts.Values.Sum();
        Console.WriteLine($"{total} words, {counts.Count} distinct");

        // The most frequent words, ties broken alphabetically.
        var ranked = counts
            .OrderByDescending(entry => entry.Value)
            .ThenBy(entry => entry.Key, StringComparer.Ordinal)
            .Take(10);
        foreach (var (word, count) in ranked)
        {
            var share = (100.0 * count / total).ToString("F2", CultureInfo.InvariantCulture);
            Console.WriteLine($"{word,-15} {count,6} {share,6}%");
        }
        return 0;
    }
}
