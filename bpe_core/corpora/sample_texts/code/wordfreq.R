#!/usr/bin/env Rscript
# Count how often each word occurs in a text and print the most common ones.

read_text <- function(path = NULL) {
  # Read the whole input: a file if a path is given, else standard input.
  con <- if (is.null(path)) file("stdin") else file(path, encoding = "UTF-8")
  on.exit(close(con))
  paste(readLines(con, warn = FALSE), collapse = "\n")
}

count_words <- function(text) {
  words <- regmatches(text, gregexpr("\\p{L}+", text, perl = TRUE))[[1]]
  table(tolower(words))
}

top_words <- function(counts, limit = 10) {
  # The most frequent words, ties broken alphabetically.
  ranked <- counts[order(-as.integer(counts), names(counts), method = "radix")]
  head(ranked, limit)
}

main <- function(args) {
  counts <- count_words(read_text(if (length(args) > 0) args[[1]] else NULL))
  total <- sum(counts)
  cat(sprintf("%d words, %d distinct\n", total, length(counts)))
  top <- top_words(counts)
  shares <- 100 * as.integer(top) / total
  cat(sprintf("%-15s %6d %6.2f%%\n", names(top), as.integer(top), shares), sep = "")
  invisible(0)
}

main(commandArgs(trailingOnly = TRUE))
