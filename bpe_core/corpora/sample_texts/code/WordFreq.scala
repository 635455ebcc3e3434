// Count how often each word occurs in a text and print the most common ones.
import scala.io.Source
import scala.util.{Failure, Success, Try, Using}

object WordFreq:
  private val Word = raw"\p{L}+".r

  /** Reads the whole input: a file if a path is given, else standard input. */
  def readText(path: Option[String]): Try[String] = path match
    case Some(file) => Using(Source.fromFile(file, "UTF-8"))(_.mkString)
    case None       => Try(Source.stdin.mkString)

  def countWords(text: String): Map[String, Int] =
    Word.findAllIn(text).map(_.toLowerCase).toSeq.groupMapReduce(identity)(_ => 1)(_ + _)

  /** The most frequent words, ties broken alphabetically. */
  def topWords(counts: Map[String, Int], limit: Int = 10): Seq[(String, Int)] =
    counts.toSeq.sortBy((word, count) => (-count, word)).take(limit)

  def main(args: Array[String]): Unit =
    readText(args.headOption) match
      case Failure(error) =>
        Console.err.println(s"wordfreq: ${error.getMessage}")
        sys.exit(1)
      case Success(text) =>
        val counts = countWords(text)
        val total = counts.values.sum
        println(s"$total words, ${counts.size} distinct")
        for (word, count) <- topWords(counts) do
          val share = 100.0 * count / total
          println(f"$word%-15s $count%6d $share%6.2f%%")
