# frozen_string_literal: true

# Count how often each word occurs in a text and print the most common ones.

WORD = /\p{L}+/

# Read the whole input: a file if a path is given, else standard input.
def read_text(path)
  path ? File.read(path, encoding: "UTF-8") : $stdin.read
end

def count_words(text)
  text.scan(WORD).map(&:downcase).tally
end

# The most frequent words, ties broken alphabetically.
def top_words(counts, limit = 10)
  counts.sort_by { |word, count| [-count, word] }.first(limit)
end

def main(argv)
  counts = count_words(read_text(argv.first))
  total = counts.values.sum
  puts "#{total} words, #{counts.size} distinct"
  top_words(counts).each do |word, count|
    share = 100.0 * count / total
    puts format("%-15s %6d %6.2f%%", word, count, share)
  end
  0
rescue Errno::ENOENT => e
  warn "wordfreq: #{e.message}"
  1
end

exit(main(ARGV)) if $PROGRAM_NAME == __FILE__
