// Count how often each word occurs in a text and print the most common ones.
"use strict";

const fs = require("fs");

const WORD = /\p{L}+/gu;

function readText(path) {
  // Read the whole input: a file if a path is given, else standard input.
  return fs.readFileSync(path === undefined ? 0 : path, "utf8");
}

function countWords(text) {
  const counts = new Map();
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    counts.set(word, (counts.get(word) || 0) + 1);
  }
  return counts;
}

function topWords(counts, limit = 10) {
  // The most frequent words, ties broken alphabetically.
  const ranked = [...counts.entries()].sort(
    (a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)
  );
  return ranked.slice(0, limit);
}

function main(argv) {
  const counts = countWords(readText(argv[2]));
  let total = 0;
  for (const count of counts.values()) total += count;
  console.log(`${total} words, ${counts.size} distinct`);
  for (const [word, count] of topWords(counts)) {
    const share = ((100 * count) / total).toFixed(2);
    console.log(`${word.padEnd(15)} ${String(count).padStart(6)} ${share.padStart(6)}%`);
  }
  return 0;
}

process.exitCode = main(process.argv);
