-- | Count how often each word occurs in a text and print the most common ones.
module Main (main) where

import Data.Char (isLetter, toLower)
import Data.List (sortBy)
import qualified Data.Map.Strict as Map
import Data.Ord (Down (..), comparing)
import System.Environment (getArgs)
import Text.Printf (printf)

type Counts = Map.Map String Int

-- | Read the whole input: a file if a path is given, else standard input.
readText :: [String] -> IO String
readText (path : _) = readFile path
readText [] = getContents

-- | Split a text into lower-cased words: runs of letters.
wordsOf :: String -> [String]
wordsOf text = case dropWhile (not . isLetter) text of
  "" -> []
  rest ->
    let (word, remainder) = span isLetter rest
     in map toLower word : wordsOf remainder

countWords :: String -> Counts
countWords = Map.fromListWith (+) . map (\w -> (w, 1)) . wordsOf

-- | The most frequent words, ties broken alphabetically.
topWords :: Int -> Counts -> [(String, Int)]
topWords limit = take limit . sortBy (comparing (\(w, c) -> (Down c, w))) . Map.toList

main :: IO ()
main = do
  counts <- countWords <$> (getArgs >>= readText)
  let total = sum (Map.elems counts)
  printf "%d words, %d distinct\n" total (Map.size counts)
  mapM_ (printRow total) (topWords 10 counts)
  where
    printRow :: Int -> (String, Int) -> IO ()
    printRow total (word, count) =
      printf "%-15s %6d %6.2f%%\n" word count share
      where
        share = 100 * fromIntegral count / fromIntegral total :: Double
