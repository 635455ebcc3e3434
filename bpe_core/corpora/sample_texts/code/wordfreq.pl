#!/usr/bin/env perl
# Count how often each word occurs in a text and print the most common ones.
use strict;
use warnings;
use utf8;
use open qw(:std :encoding(UTF-8));

# Read the whole input: a file if a path is given, else standard input.
sub read_text {
    my ($path) = @_;
    local $/;    # slurp mode
    return scalar <STDIN> unless defined $path;
    open my $fh, '<', $path or die "wordfreq: cannot open $path: $!\n";
    my $text = <$fh>;
    close $fh;
    return $text // '';
}

sub count_words {
    my ($text) = @_;
    my %counts;
    $counts{ lc $1 }++ while $text =~ /(\p{L}+)/g;
    return \%counts;
}

# The most frequent words, ties broken alphabetically.
sub top_words {
    my ( $counts, $limit ) = @_;
    my @ranked = sort { $counts->{$b} <=> $counts->{$a} or $a cmp $b } keys %$counts;
    splice @ranked, $limit if @ranked > $limit;
    return @ranked;
}

my $counts = count_words( read_text( $ARGV[0] ) );
my $total  = 0;
$total += $_ for values %$counts;
printf "%d words, %d distinct\n", $total, scalar keys %$counts;
for my $word ( top_words( $counts, 10 ) ) {
    printf "%-15s %6d %6.2f%%\n", $word, $counts->{$word}, 100 * $counts->{$word} / $total;
}
