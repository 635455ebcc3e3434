/* Count how often each word occurs in a text and print the most common ones.
   Words are runs of ASCII letters, compared without case. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORD 64

struct entry { char word[MAX_WORD]; int count; };

static struct entry *entries = NULL;
static size_t used = 0, capacity = 0;

static void add_word(const char *word) {
    for (size_t i = 0; i < used; i++) {
        if (strcmp(entries[i].word, word) == 0) { entries[i].count++; return; }
    }
    if (used == capacity) {
        capacity = capacity ? 2 * capacity : 256;
        entries = realloc(entries, capacity * sizeof *entries);
        if (!entries) { perror("realloc"); exit(1); }
    }
    strcpy(entries[used].word, word);
    entries[used++].count = 1;
}

static int by_count(const void *a, const void *b) {
    const struct entry *x = a, *y = b;
    if (x->count != y->count) return y->count - x->count;
    return strcmp(x->word, y->word);
}

int main(int argc, char **argv) {
    FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (!in) { perror(argv[1]); return 1; }
    char word[MAX_WORD];
    size_t length = 0;
    long total = 0;
    int c;
    while ((c = fgetc(in)) != EOF) {
        if (isalpha(c) && length < MAX_WORD - 1) {
            word[length++] = (char)tolower(c);
        } else if (!isalpha(c) && length > 0) {
            word[length] = '\0';
            add_word(word);
            total++;
            length = 0;
        }
    }
    if (length > 0) { word[length] = '\0'; add_word(word); total++; }
    qsort(entries, used, sizeof *entries, by_count);
    printf("%ld words, %zu distinct\n", total, used);
    for (size_t i = 0; i < used && i < 10; i++) {
        printf("%-15s %6d %6.2f%%\n", entries[i].word, entries[i].count,
               100.0 * entries[i].count / total);
    }
    free(entries);
    return 0;
}
