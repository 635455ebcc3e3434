// Count how often each word occurs in a text and print the most common ones.
import java.io.File
import kotlin.system.exitProcess

private val WORD = Regex("""\p{L}+""")

/** Reads the whole input: a file if a path is given, else standard input. */
fun readText(path: String?): String =
    if (path != null) File(path).readText(Charsets.UTF_8) else generateSequence(::readLine).joinToString("\n")

fun countWords(text: String): Map<String, Int> =
    WORD.findAll(text)
        .map { it.value.lowercase() }
        .groupingBy { it }
        .eachCount()

/** The most frequent words, ties broken alphabetically. */
fun topWords(counts: Map<String, Int>, limit: Int = 10): List<Pair<String, Int>> =
    counts.entries
        .sortedWith(compareByDescending<Map.Entry<String, Int>> { it.value }.thenBy { it.key })
        .take(limit)
        .map { it.key to it.value }

fun main(args: Array<String>) {
    val text = try {
        readText(args.firstOrNull())
    } catch (error: java.io.IOException) {
        System.err.println("wordfreq: ${error.message}")
        exitProcess(1)
    }
    val counts = countWords(text)
    val total = counts.values.sum()
    println("$total words, ${counts.size} distinct")
    for ((word, count) in topWords(counts)) {
        val share = 100.0 * count / total
        println("%-15s %6d %6.2f%%".format(word, count, share))
    }
}
