## Count how often each word occurs in a text and print the most common ones.
## Words are runs of letters, compared in lower case.

import std/[algorithm, os, strformat, tables, unicode]

proc readText(): string =
  ## Reads the whole input: a file if a path is given, else standard input.
  if paramCount() > 0: readFile(paramStr(1)) else: stdin.readAll()

proc countWords(text: string): CountTable[string] =
  var word = ""
  for rune in text.runes:
    if rune.isAlpha:
      word.add rune.toLower.toUTF8
    elif word.len > 0:
      result.inc word
      word.setLen 0
  if word.len > 0:
    result.inc word

proc topWords(counts: CountTable[string], limit = 10): seq[(string, int)] =
  ## The most frequent words, ties broken alphabetically.
  for word, count in counts:
    result.add (word, count)
  result.sort do (a, b: (string, int)) -> int:
    result = cmp(b[1], a[1])
    if result == 0: result = cmp(a[0], b[0])
  if result.len > limit:
    result.setLen limit

when isMainModule:
  let text =
    try: readText()
    except IOError as error:
      quit &"wordfreq: {error.msg}", 1
  let counts = countWords(text)
  var total = 0
  for count in counts.values: total += count
  echo &"{total} words, {counts.len} distinct"
  for (word, count) in topWords(counts):
    let share = 100 * count / total
    echo &"{word:<15} {count:>6} {share:>6.2f}%"
