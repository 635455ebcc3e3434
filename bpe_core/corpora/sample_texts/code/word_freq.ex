defmodule WordFreq do
  @moduledoc """
  Count how often each word occurs in a text and print the most common ones.
  """

  @word ~r/\p{L}+/u

  @doc "Reads the whole input: a file if a path is given, else standard input."
  @spec read_text([String.t()]) :: {:ok, String.t()} | {:error, File.posix()}
  def read_text([path | _]), do: File.read(path)
  def read_text([]), do: {:ok, IO.read(:stdio, :eof)}

  @doc """
  Counts the lower-cased words of `text`.

      iex> WordFreq.count_words("The cat and the hat")
      %{"and" => 1, "cat" => 1, "hat" => 1, "the" => 2}
  """
  @spec count_words(String.t()) :: %{String.t() => pos_integer()}
  def count_words(text) do
    @word
    |> Regex.scan(text)
    |> Enum.map(fn [word] -> String.downcase(word) end)
    |> Enum.frequencies()
  end

  @doc "The most frequent words, ties broken alphabetically."
  def top_words(counts, limit \\ 10) do
    counts
    |> Enum.sort_by(fn {word, count} -> {-count, word} end)
    |> Enum.take(limit)
  end

  def main(args) do
    case read_text(args) do
      {:ok, text} ->
        counts = count_words(text)
        total = counts |> Map.values() |> Enum.sum()
        IO.puts("#{total} words, #{map_size(counts)} distinct")

        for {word, count} <- top_words(counts) do
          share = :erlang.float_to_binary(100 * count / total, decimals: 2)
          IO.puts("#{String.pad_trailing(word, 15)} #{String.pad_leading("#{count}", 6)} #{String.pad_leading(share, 6)}%")
        end

      {:error, reason} ->
        IO.puts(:stderr, "wordfreq: #{:file.format_error(reason)}")
        System.halt(1)
    end
  end
end

WordFreq.main(System.argv())
