# Count how often each word occurs in a text and print the most common ones.
using Printf

const WORD = r"\p{L}+"

"""
    read_text(args)

Read the whole input: the file named by the first argument, else standard input.
"""
read_text(args::Vector{String}) = isempty(args) ? read(stdin, String) : read(first(args), String)

"""
    count_words(text) -> Dict{String,Int}

Count the lower-cased words of `text`, a word being a run of letters.
"""
function count_words(text::AbstractString)
    counts = Dict{String,Int}()
    for m in eachmatch(WORD, text)
        word = lowercase(m.match)
        counts[word] = get(counts, word, 0) + 1
    end
    return counts
end

"The most frequent words, ties broken alphabetically."
top_words(counts::Dict{String,Int}; limit::Int = 10) =
    first(sort!(collect(counts); by = ((word, count),) -> (-count, word)), limit)

function main(args)
    counts = count_words(read_text(args))
    total = sum(values(counts); init = 0)
    println("$total words, $(length(counts)) distinct")
    for (word, count) in top_words(counts)
        @printf("%-15s %6d %6.2f%%\n", word, count, 100 * count / total)
    end
    return 0
end

if abspath(PROGRAM_FILE) == @__FILE__
    exit(main(ARGS))
end
