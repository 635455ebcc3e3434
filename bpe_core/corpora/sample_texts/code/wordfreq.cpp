// Count how often each word occurs in a text and print the most common ones.
// Words are runs of ASCII letters, compared in lower case.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

using Counts = std::unordered_map<std::string, long>;

Counts count_words(std::istream& in) {
    Counts counts;
    std::string word;
    char c;
    while (in.get(c)) {
        if (std::isalpha(static_cast<unsigned char>(c))) {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else if (!word.empty()) {
            ++counts[word];
            word.clear();
        }
    }
    if (!word.empty()) ++counts[word];
    return counts;
}

int main(int argc, char** argv) {
    std::ifstream file;
    if (argc > 1) {
        file.open(argv[1]);
        if (!file) {
            std::cerr << "cannot open " << argv[1] << '\n';
            return 1;
        }
    }
    const Counts counts = count_words(argc > 1 ? file : std::cin);

    long total = 0;
    for (const auto& [word, count] : counts) total += count;
    std::vector<std::pair<std::string, long>> ranked(counts.begin(), counts.end());
    // The most frequent words first, ties broken alphabetically.
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });

    std::printf("%ld words, %zu distinct\n", total, counts.size());
    const std::size_t shown = std::min<std::size_t>(10, ranked.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& [word, count] = ranked[i];
        std::printf("%-15s %6ld %6.2f%%\n", word.c_str(), count, 100.0 * count / total);
    }
    return 0;
}
