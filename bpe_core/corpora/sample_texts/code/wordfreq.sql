-- Word frequencies of the documents in a small library, stored one word per row.
CREATE TABLE documents (
    id      INTEGER PRIMARY KEY,
    title   TEXT NOT NULL,
    added   DATE NOT NULL DEFAULT CURRENT_DATE
);

CREATE TABLE words (
    document_id INTEGER NOT NULL REFERENCES documents (id),
    position    INTEGER NOT NULL,
    word        TEXT NOT NULL,
    PRIMARY KEY (document_id, position)
);

CREATE INDEX words_by_word ON words (lower(word));

-- The ten most common words over all documents, with their share of all words.
WITH counts AS (
    SELECT lower(word) AS word, COUNT(*) AS n
    FROM words
    GROUP BY lower(word)
),
total AS (
    SELECT SUM(n) AS n FROM counts
)
SELECT counts.word,
       counts.n,
       ROUND(100.0 * counts.n / total.n, 2) AS share
FROM counts CROSS JOIN total
ORDER BY counts.n DESC, counts.word ASC
LIMIT 10;

-- Documents in which the word 'library' occurs at least twice.
SELECT d.title, COUNT(*) AS mentions
FROM documents AS d
JOIN words AS w ON w.document_id = d.id
WHERE lower(w.word) = 'library'
GROUP BY d.id, d.title
HAVING COUNT(*) >= 2
ORDER BY mentions DESC;
