// Count how often each word occurs in a text and print the most common ones.
import { readFileSync } from "node:fs";

const WORD = /\p{L}+/gu;

type Counts = Map<string, number>;

interface Ranked {
  word: string;
  count: number;
  share: number;
}

/** Read the whole input: a file if a path is given, else standard input. */
function readText(path?: string): string {
  return readFileSync(path ?? 0, "utf8");
}

export function countWords(text: string): Counts {
  const counts: Counts = new Map();
  for (const [match] of text.matchAll(WORD)) {
    const word = match.toLowerCase();
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

/** The most frequent words with their share of all words, ties broken alphabetically. */
export function topWords(counts: Counts, limit = 10): Ranked[] {
  let total = 0;
  for (const count of counts.values()) total += count;
  return [...counts]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
    .map(([word, count]) => ({ word, count, share: (100 * count) / total }));
}

function main(args: readonly string[]): number {
  const counts = countWords(readText(args[0]));
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
  console.log(`${total} words, ${counts.size} distinct`);
  for (const { word, count, share } of topWords(counts)) {
    console.log(`${word.padEnd(15)} ${String(count).padStart(6)} ${share.toFixed(2).padStart(6)}%`);
  }
  return 0;
}

process.exitCode = main(process.argv.slice(2));
