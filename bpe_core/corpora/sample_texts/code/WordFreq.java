// Count how often each word occurs in a text and print the most common ones.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class WordFreq {
    private static final Pattern WORD = Pattern.compile("\\p{L}+");

    static String readText(String[] args) throws IOException {
        if (args.length > 0) {
            return Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        }
        return new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
    }

    static Map<String, Integer> countWords(String text) {
        Map<String, Integer> counts = new HashMap<>();
        Matcher matcher = WORD.matcher(text);
        while (matcher.find()) {
            counts.merge(matcher.group().toLowerCase(), 1, Integer::sum);
        }
        return counts;
    }

    public static void main(String[] args) throws IOException {
        Map<String, Integer> counts = countWords(readText(args));
        int total = counts.values().stream().mapToInt(Integer::intValue).sum();
        System.out.printf("%d words, %d distinct%n", total, counts.size());
        List<Map.Entry<String, Integer>> ranked = new ArrayList<>(counts.entrySet());
        ranked.sort((a, b) -> a.getValue().equals(b.getValue())
                ? a.getKey().compareTo(b.getKey())
                : b.getValue() - a.getValue());
        for (Map.Entry<String, Integer> entry : ranked.subList(0, Math.min(10, ranked.size()))) {
            double share = 100.0 * entry.getValue() / total;
            System.out.printf("%-15s %6d %6.2f%%%n", entry.getKey(), entry.getValue(), share);
        }
    }
}
