-- Count how often each word occurs in a text and print the most common ones.
-- Words are runs of ASCII letters, compared in lower case.

local function read_text(path)
  -- Read the whole input: a file if a path is given, else standard input.
  if path == nil then
    return io.read("a")
  end
  local file, err = io.open(path, "r")
  if not file then
    io.stderr:write("wordfreq: ", err, "\n")
    os.exit(1)
  end
  local text = file:read("a")
  file:close()
  return text
end

local function count_words(text)
  local counts, total = {}, 0
  for word in text:gmatch("%a+") do
    word = word:lower()
    counts[word] = (counts[word] or 0) + 1
    total = total + 1
  end
  return counts, total
end

local function top_words(counts, limit)
  local ranked = {}
  for word, count in pairs(counts) do
    ranked[#ranked + 1] = { word = word, count = count }
  end
  -- The most frequent words, ties broken alphabetically.
  table.sort(ranked, function(a, b)
    if a.count ~= b.count then
      return a.count > b.count
    end
    return a.word < b.word
  end)
  return { table.unpack(ranked, 1, math.min(limit, #ranked)) }
end

local counts, total = count_words(read_text(arg[1]))
local distinct = 0
for _ in pairs(counts) do
  distinct = distinct + 1
end
print(string.format("%d words, %d distinct", total, distinct))
for _, entry in ipairs(top_words(counts, 10)) do
  print(string.format("%-15s %6d %6.2f%%", entry.word, entry.count, 100 * entry.count / total))
end
