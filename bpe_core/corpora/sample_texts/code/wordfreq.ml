(* Count how often each word occurs in a text and print the most common ones.
   Words are runs of ASCII letters, compared in lower case. *)

let is_letter = function 'a' .. 'z' | 'A' .. 'Z' -> true | _ -> false

(* Read the whole input: a file if a path is given, else standard input. *)
let read_text () =
  if Array.length Sys.argv > 1 then In_channel.with_open_bin Sys.argv.(1) In_channel.input_all
  else In_channel.input_all stdin

let count_words text =
  let counts = Hashtbl.create 1024 in
  let add word =
    let word = String.lowercase_ascii word in
    Hashtbl.replace counts word (1 + Option.value ~default:0 (Hashtbl.find_opt counts word))
  in
  let start = ref (-1) in
  String.iteri
    (fun i c ->
      if is_letter c then (if !start < 0 then start := i)
      else if !start >= 0 then begin
        add (String.sub text !start (i - !start));
        start := -1
      end)
    text;
  if !start >= 0 then add (String.sub text !start (String.length text - !start));
  counts

(* The most frequent words, ties broken alphabetically. *)
let top_words ?(limit = 10) counts =
  Hashtbl.fold (fun word count acc -> (word, count) :: acc) counts []
  |> List.sort (fun (w1, c1) (w2, c2) -> if c1 <> c2 then compare c2 c1 else compare w1 w2)
  |> List.filteri (fun i _ -> i < limit)

let () =
  match read_text () with
  | exception Sys_error message ->
      prerr_endline ("wordfreq: " ^ message);
      exit 1
  | text ->
      let counts = count_words text in
      let total = Hashtbl.fold (fun _ count sum -> sum + count) counts 0 in
      Printf.printf "%d words, %d distinct\n" total (Hashtbl.length counts);
      top_words counts
      |> List.iter (fun (word, count) ->
             let share = 100.0 *. float_of_int count /. float_of_int total in
             Printf.printf "%-15s %6d %6.2f%%\n" word count share)
