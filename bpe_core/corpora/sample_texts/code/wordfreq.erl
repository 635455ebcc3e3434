%% Count how often each word occurs in a text and print the most common ones.
%% From the shell: c(wordfreq), wordfreq:main(["story.txt"]).
-module(wordfreq).
-export([main/1, count_words/1, top_words/2]).

-define(LIMIT, 10).

%% Read the whole input: a file if a path is given, else standard input.
read_text([Path | _]) ->
    file:read_file(Path);
read_text([]) ->
    {ok, read_stdin(<<>>)}.

read_stdin(Acc) ->
    case io:get_chars(standard_io, "", 65536) of
        eof -> Acc;
        Data -> read_stdin(<<Acc/binary, (unicode:characters_to_binary(Data))/binary>>)
    end.

%% A map from each lower-cased word (a run of letters) to its count.
count_words(Text) ->
    {match, Words} = case re:run(Text, "\\p{L}+", [global, unicode, {capture, all, binary}]) of
        nomatch -> {match, []};
        Found -> Found
    end,
    lists:foldl(
        fun([Word], Counts) ->
            maps:update_with(string:lowercase(Word), fun(N) -> N + 1 end, 1, Counts)
        end,
        #{},
        Words).

%% The most frequent words, ties broken alphabetically.
top_words(Counts, Limit) ->
    Ranked = lists:sort(fun({W1, C1}, {W2, C2}) -> {-C1, W1} =< {-C2, W2} end, maps:to_list(Counts)),
    lists:sublist(Ranked, Limit).

main(Args) ->
    case read_text(Args) of
        {ok, Text} ->
            Counts = count_words(Text),
            Total = lists:sum(maps:values(Counts)),
            io:format("~b words, ~b distinct~n", [Total, map_size(Counts)]),
            lists:foreach(
                fun({Word, Count}) ->
                    io:format("~-15ts ~6b ~6.2f%~n", [Word, Count, 100 * Count / Total])
                end,
                top_words(Counts, ?LIMIT));
        {error, Reason} ->
            io:format(standard_error, "wordfreq: ~s~n", [file:format_error(Reason)]),
            halt(1)
    end.
