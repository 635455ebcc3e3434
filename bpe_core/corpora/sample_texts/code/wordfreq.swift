// Count how often each word occurs in a text and print the most common ones.
import Foundation

/// Reads the whole input: a file if a path is given, else standard input.
func readText(_ arguments: [String]) throws -> String {
    if arguments.count > 1 {
        return try String(contentsOfFile: arguments[1], encoding: .utf8)
    }
    let data = FileHandle.standardInput.readDataToEndOfFile()
    return String(decoding: data, as: UTF8.self)
}

/// Counts the lower-cased words of `text`; a word is a run of letters.
func countWords(in text: String) -> [String: Int] {
    var counts: [String: Int] = [:]
    var word = ""
    for character in text {
        if character.isLetter {
            word.append(character)
        } else if !word.isEmpty {
            counts[word.lowercased(), default: 0] += 1
            word = ""
        }
    }
    if !word.isEmpty {
        counts[word.lowercased(), default: 0] += 1
    }
    return counts
}

do {
    let counts = countWords(in: try readText(CommandLine.arguments))
    let total = counts.values.reduce(0, +)
    print("\(total) words, \(counts.count) distinct")
    // The most frequent words, ties broken alphabetically.
    let ranked = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    for (word, count) in ranked.prefix(10) {
        let share = 100.0 * Double(count) / Double(total)
        let padded = word.padding(toLength: max(15, word.count), withPad: " ", startingAt: 0)
        print(padded + String(format: " %6ld %6.2f%%", count, share))
    }
} catch {
    FileHandle.standardError.write("wordfreq: \(error.localizedDescription)\n".data(using: .utf8)!)
    exit(1)
}
