function wordfreq(path)
%WORDFREQ Count how often each word occurs in a text and print the most common ones.
%   WORDFREQ(PATH) reads the text file PATH. Words are runs of ASCII letters,
%   compared in lower case. Runs in MATLAB and GNU Octave.
%
%   Example:
%     wordfreq('story.txt')

  [fid, message] = fopen(path, 'r', 'n', 'UTF-8');
  if fid < 0
    error('wordfreq:open', 'cannot open %s: %s', path, message);
  end
  cleanup = onCleanup(@() fclose(fid));
  text = fread(fid, Inf, '*char')';

  words = lower(regexp(text, '[a-zA-Z]+', 'match'));
  total = numel(words);
  [unique_words, ~, index] = unique(words);
  counts = accumarray(index(:), 1);
  fprintf('%d words, %d distinct\n', total, numel(unique_words));
  if total == 0
    return
  end

  % The most frequent words, ties broken alphabetically: unique() sorts the
  % words, and a stable sort on the counts keeps that order among equals.
  [~, order] = sort(-counts);
  for k = order(1:min(10, numel(order)))'
    fprintf('%-15s %6d %6.2f%%\n', unique_words{k}, counts(k), 100 * counts(k) / total);
  end
end
