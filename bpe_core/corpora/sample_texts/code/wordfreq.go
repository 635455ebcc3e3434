// Command wordfreq counts how often each word occurs in a text and prints the most common ones.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode"
)

func readText() (string, error) {
	// Read the whole input: a file if a path is given, else standard input.
	if len(os.Args) > 1 {
		data, err := os.ReadFile(os.Args[1])
		return string(data), err
	}
	data, err := io.ReadAll(os.Stdin)
	return string(data), err
}

func countWords(text string) map[string]int {
	counts := make(map[string]int)
	notLetter := func(r rune) bool { return !unicode.IsLetter(r) }
	for _, word := range strings.FieldsFunc(text, notLetter) {
		counts[strings.ToLower(word)]++
	}
	return counts
}

func main() {
	text, err := readText()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	counts := countWords(text)
	words := make([]string, 0, len(counts))
	total := 0
	for word, count := range counts {
		words = append(words, word)
		total += count
	}
	// The most frequent words, ties broken alphabetically.
	sort.Slice(words, func(i, j int) bool {
		if counts[words[i]] != counts[words[j]] {
			return counts[words[i]] > counts[words[j]]
		}
		return words[i] < words[j]
	})
	fmt.Printf("%d words, %d distinct\n", total, len(counts))
	for i, word := range words {
		if i == 10 {
			break
		}
		share := 100 * float64(counts[word]) / float64(total)
		fmt.Printf("%-15s %6d %6.2f%%\n", word, counts[word], share)
	}
}
