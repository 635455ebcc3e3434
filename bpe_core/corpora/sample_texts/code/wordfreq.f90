! Count how often each word occurs in a text and print the most common ones.
! Words are runs of ASCII letters, compared in lower case; at most 64 letters each.
program wordfreq
  implicit none
  integer, parameter :: max_len = 64, max_words = 10000, shown = 10
  character(len=max_len) :: words(max_words), word
  integer :: counts(max_words) = 0, order(max_words)
  integer :: distinct = 0, total = 0, unit, status, i, j, length
  character(len=4096) :: line, path

  if (command_argument_count() > 0) then
    call get_command_argument(1, path)
    open (newunit=unit, file=trim(path), status='old', action='read', iostat=status)
    if (status /= 0) stop 'wordfreq: cannot open the input file'
  else
    unit = 5  ! standard input
  end if

  do
    read (unit, '(a)', iostat=status) line
    if (status /= 0) exit
    length = 0
    do i = 1, len_trim(line) + 1
      if (i <= len_trim(line) .and. is_letter(line(i:i))) then
        if (length < max_len) then
          length = length + 1
          word(length:length) = lower(line(i:i))
        end if
      else if (length > 0) then
        call add_word(word(1:length))
        length = 0
      end if
    end do
  end do

  ! The most frequent words first, ties broken alphabetically (insertion sort on indices).
  order(1:distinct) = [(i, i = 1, distinct)]
  do i = 2, distinct
    j = i
    do while (j > 1)
      if (.not. before(order(j), order(j - 1))) exit
      order(j - 1:j) = [order(j), order(j - 1)]
      j = j - 1
    end do
  end do

  print '(i0, a, i0, a)', total, ' words, ', distinct, ' distinct'
  do i = 1, min(shown, distinct)
    j = order(i)
    print '(a15, 1x, i6, 1x, f6.2, a)', words(j), counts(j), 100.0 * counts(j) / total, '%'
  end do

contains

  logical function is_letter(c)
    character, intent(in) :: c
    is_letter = (c >= 'a' .and. c <= 'z') .or. (c >= 'A' .and. c <= 'Z')
  end function is_letter

  character function lower(c)
    character, intent(in) :: c
    lower = c
    if (c >= 'A' .and. c <= 'Z') lower = achar(iachar(c) + 32)
  end function lower

  logical function before(a, b)
    integer, intent(in) :: a, b
    before = counts(a) > counts(b) .or. (counts(a) == counts(b) .and. llt(words(a), words(b)))
  end function before

  subroutine add_word(w)
    character(len=*), intent(in) :: w
    integer :: k
    total = total + 1
    do k = 1, distinct
      if (words(k) == w) then
        counts(k) = counts(k) + 1
        return
      end if
    end do
    if (distinct == max_words) stop 'wordfreq: too many distinct words'
    distinct = distinct + 1
    words(distinct) = w
    counts(distinct) = 1
  end subroutine add_word

end program wordfreq
