//! Count how often each word occurs in a text and print the most common ones.
use std::collections::HashMap;
use std::env;
use std::fs;
use std::io::{self, Read};

fn read_text() -> io::Result<String> {
    // Read the whole input: a file if a path is given, else standard input.
    match env::args().nth(1) {
        Some(path) => fs::read_to_string(path),
        None => {
            let mut text = String::new();
            io::stdin().read_to_string(&mut text)?;
            Ok(text)
        }
    }
}

fn count_words(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty()) {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

fn main() -> io::Result<()> {
    let counts = count_words(&read_text()?);
    let total: usize = counts.values().sum();
    println!("{} words, {} distinct", total, counts.len());
    let mut ranked: Vec<(&String, &usize)> = counts.iter().collect();
    // The most frequent words, ties broken alphabetically.
    ranked.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    for (word, count) in ranked.into_iter().take(10) {
        let share = 100.0 * *count as f64 / total as f64;
        println!("{:<15} {:>6} {:6.2}%", word, count, share);
    }
    Ok(())
}
