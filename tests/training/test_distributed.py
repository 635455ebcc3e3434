"""Counting on Dask (bpe_core.training.distributed) equals counting here: the same counts in the same order of
first appearance, the same statistics and the same merges under every tie rule, however many
partitions the files are cut into; bad addresses, a missing dask and unreadable inputs are one clear
error each.

The partition rule itself (cuts both neighbours agree on, no special token cut through) is checked
without Dask on random text; the cluster tests run on one module-wide 2-worker LocalCluster."""

from __future__ import annotations

import contextlib
import gc
import gzip
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_core
from bpe_core.pretokenization.pretokenizer import PreTokenizer
from bpe_core.training import dask_cluster
from bpe_core.training import distributed as bd
from bpe_core.training.counting import WordCounts, count_files, count_words

SPECIALS = ("<|endoftext|>", "<| sep |>", " \n<s>")
TEXT_A = (
    "def héllo(wörld):\n    return wörld  # 数字 123456 and   spaces\n\n\n"
    "Ünïcödé façade — naïve café, Ελληνικά и кириллица 🙂🙂 tabs\there\r\n" * 40
)
TEXT_B = "<|endoftext|>alpha beta<| sep |>  gamma \n<s>delta\n" * 30 + "tail without newline"


def _write(folder, name: str, text: str, encoding_prefix: bytes = b"") -> str:
    path = os.path.join(folder, name)
    with open(path, "wb") as handle:
        handle.write(encoding_prefix + text.encode("utf-8"))
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Several files: a large one (split into many ranges), specials, a BOM, an empty file, a file no
    safe cut splits (no whitespace), JSONL with bad rows and gzipped text (both counted whole)."""
    folder = tmp_path_factory.mktemp("dask_corpus")
    return [
        _write(folder, "big.py", TEXT_A * 3),
        _write(folder, "specials.txt", TEXT_B),
        _write(folder, "bom.txt", "first line\nsecond", encoding_prefix=b"\xef\xbb\xbf"),
        _write(folder, "empty.txt", ""),
        _write(folder, "nospace.txt", "x" * 3000 + "ü" * 500),
        _write(folder, "rows.jsonl", '{"text": "row one"}\n{"body": "no text"}\n"a bare string row"\n{"text": 7}\n'),
        _gzip(folder, "packed.txt.gz", TEXT_A),
    ]


def _gzip(folder, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    with gzip.open(path, "wb") as handle:
        handle.write(text.encode("utf-8"))
    return path


def _in_process(paths, pattern="gpt2", specials=()) -> WordCounts:
    return count_files(paths, pretokenizer=PreTokenizer.build(pattern), special_tokens=specials, workers=1)


def _same(got: WordCounts, expected: WordCounts) -> None:
    assert list(got.counts.items()) == list(expected.counts.items())  # counts and order of first appearance
    assert got.stats == expected.stats


def _count_locally(paths, *, pattern, specials, partition_bytes) -> WordCounts:
    """count_on_dask's work without Dask: every partition counted here, added in order."""
    settings = bd.CountSettings(PreTokenizer.build(pattern).source, tuple(specials))
    result = WordCounts()
    for partition in bd.plan_partitions(paths, pattern=pattern, partition_bytes=partition_bytes):
        result.update(bd.count_partition(partition, settings))
    return result


# --- the partition rule, without Dask ------------------------------------------------------------

PIECES = st.sampled_from(
    ["a", "ab", " ", "  ", "\n", "\t", "ü", "数", "🙂", "'s", "12", "!", " \n", "<|x|>", "<|", "x|>"]
)


@given(st.lists(PIECES, max_size=60), st.integers(1, 40), st.sampled_from(["gpt2", "cl100k", "o200k"]))
def test_partitions_add_up_to_the_whole_file(tmp_path_factory, pieces, partition_bytes, pattern):
    path = _write(tmp_path_factory.mktemp("p"), "t.txt", "".join(pieces))
    for specials in ((), ("<|x|>", " \n")):
        got = _count_locally([path], pattern=pattern, specials=specials, partition_bytes=partition_bytes)
        _same(got, _in_process([path], pattern, specials))


def test_cuts_tile_the_file_and_never_split_a_character_or_a_special_token(corpus):
    settings = bd.CountSettings(PreTokenizer.build("gpt2").source, SPECIALS)
    for path in corpus[:2]:
        data = Path(path).read_bytes()
        cuts = [bd.cut_after(path, offset, settings=settings) for offset in range(1, len(data), 37)]
        assert cuts == sorted(cuts) and len(set(cuts)) > 10
        text = data.decode("utf-8")
        for cut in cuts:
            assert cut == len(data) or (data[cut] & 0xC0) != 0x80  # a character's start
            position = len(data[:cut].decode("utf-8"))
            assert not any(
                text.find(token, max(0, position - len(token) + 1), position + len(token) - 1) != -1
                for token in SPECIALS
            )


def test_a_custom_pattern_has_no_cut_before_the_end_of_the_file(corpus):
    settings = bd.CountSettings(r"\S+|\s+", ())  # a custom pattern: no safe cut is known for it
    size = Path(corpus[0]).stat().st_size
    assert [bd.cut_after(corpus[0], offset, settings=settings) for offset in (1, size // 2)] == [size, size]


def test_a_file_without_a_safe_cut_is_one_partition_of_work(corpus):
    settings = bd.CountSettings(PreTokenizer.build("gpt2").source, ())
    assert bd.cut_after(corpus[4], 100, settings=settings) == os.path.getsize(corpus[4])


def test_invalid_utf8_in_a_range_names_the_file_and_offset(tmp_path):
    path = _write(tmp_path, "bad.txt", "ok text " * 100)
    with open(path, "ab") as handle:
        handle.write(b"more \xff\xfe text " * 10)
    with pytest.raises(ValueError) as expected:
        _in_process([path])
    with pytest.raises(ValueError) as got:
        _count_locally([path], pattern="gpt2", specials=(), partition_bytes=64)
    assert str(got.value) == str(expected.value) and "byte offset 805" in str(got.value)


def test_a_path_a_worker_cannot_see_says_workers_need_the_same_paths(tmp_path):
    missing = bd.Partition(str(tmp_path / "gone.txt"), whole=True)
    with pytest.raises(FileNotFoundError) as raised:
        bd.count_partition(missing, bd.CountSettings("gpt2", ()))
    message = str(bd._worker_error(raised.value, missing))
    assert "gone.txt" in message and "every worker must see the inputs at the same absolute paths" in message


def test_plan_splits_only_plain_text_with_a_preset_pattern(tmp_path):
    text = _write(tmp_path, "a.txt", "word " * 100)
    jsonl = _write(tmp_path, "a.jsonl", '{"text": "word"}\n' * 100)
    assert len(bd.plan_partitions([text, jsonl], pattern="gpt2", partition_bytes=100)) == 6
    assert [p.whole for p in bd.plan_partitions([text, jsonl], pattern=r"\S+|\s+", partition_bytes=100)] == [True, True]
    assert [p.whole for p in bd.plan_partitions([text], pattern=None, partition_bytes=100)] == [True]


# --- without dask ----------------------------------------------------------------------------------


def test_missing_dask_names_the_install_command(monkeypatch, corpus):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    with pytest.raises(ValueError, match=r"pip install -r requirements-distributed\.txt") as caught:
        bd.count_on_dask(corpus[:1])
    assert isinstance(caught.value, bpe_core.BpeError)
    with pytest.raises(bpe_core.BpeError, match="requirements-distributed"):
        bd.train_on_dask(corpus[:1], 300)


def test_bpe_core_imports_without_dask():
    code = (
        "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "
        "import bpe_core, bpe_core.training.distributed"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=os.path.dirname(os.path.dirname(bpe_core.__file__)),
    )
    assert result.returncode == 0, result.stderr


# --- on a 2-worker local cluster -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, silence_logs=50
    ) as local:
        yield local


@pytest.mark.parametrize("partition_bytes", [300, 4000, 1 << 30])
def test_dask_counts_equal_in_process_counts(cluster, corpus, partition_bytes):
    got = bd.count_on_dask(
        corpus, special_tokens=SPECIALS, scheduler=cluster.scheduler_address, partition_bytes=partition_bytes
    )
    _same(got, _in_process(corpus, "gpt2", SPECIALS))
    assert got.stats.bad_rows == 2 and got.stats.bad_row_examples[0]["row"] == 2


def test_bad_rows_stop_as_in_process(cluster, corpus):
    with pytest.raises(ValueError) as expected:
        count_files(corpus, pretokenizer=PreTokenizer.build("gpt2"), on_bad_row="stop", workers=1)
    with pytest.raises(ValueError) as got:
        bd.count_on_dask(corpus, on_bad_row="stop", scheduler=cluster.scheduler_address, partition_bytes=500)
    assert str(got.value) == str(expected.value) and "rows.jsonl" in str(got.value)


def test_cli_count_and_train_with_dask_equal_without(cluster, corpus, tmp_path, capsys):
    from bpe_core.cli.main import main
    from bpe_core.training.count_shards import read_count_shards

    address = cluster.scheduler_address
    assert main(["count", *corpus, "-o", str(tmp_path / "local")]) == 0
    assert main(["count", *corpus, "--dask", address, "-o", str(tmp_path / "dask")]) == 0
    (local, _), (dask, _) = read_count_shards(tmp_path / "local"), read_count_shards(tmp_path / "dask")
    assert list(dask.counts.items()) == list(local.counts.items())
    common = ["--vocab-size", "400", "--tie-break", "first", "--special-token", SPECIALS[0]]
    assert main(["train", *corpus, *common, "-o", str(tmp_path / "a.json")]) == 0
    assert main(["train", *corpus, "--dask", address, *common, "-o", str(tmp_path / "b.json")]) == 0
    assert bpe_core.load(tmp_path / "b.json").merges == bpe_core.load(tmp_path / "a.json").merges
    capsys.readouterr()
    assert main(["train", *corpus, "--dask-workers", "2", "--vocab-size", "300", "-o", str(tmp_path / "c.json")]) == 2
    assert "add --dask" in capsys.readouterr().err
    assert (
        main(["train", *corpus, "--dask", "--workers", "2", "--vocab-size", "300", "-o", str(tmp_path / "c.json")]) == 2
    )
    assert "--dask-workers" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: --dask took an input for its address
        main(["count", "--dask", corpus[0], "-o", str(tmp_path / "e")])
    assert "put --dask after the inputs" in capsys.readouterr().err


@pytest.mark.parametrize("pattern", ["cl100k", "o200k", r"\w+|[^\w\s]+|\s+", None])
def test_other_patterns_equal_in_process_counts(cluster, corpus, pattern):
    got = bd.count_on_dask(corpus, pattern=pattern, scheduler=cluster.scheduler_address, partition_bytes=900)
    _same(got, _in_process(corpus, pattern))


@pytest.mark.parametrize("tie_break", ["lexicographic", "first", "huggingface", "rustbpe"])
def test_merges_equal_train_files_under_every_tie_rule(cluster, corpus, tie_break):
    options = {"special_tokens": list(SPECIALS), "tie_break": tie_break, "min_frequency": 1}
    expected = bpe_core.train_files(corpus, 420, workers=1, **options)
    got = bd.train_on_dask(corpus, 420, scheduler=cluster.scheduler_address, partition_bytes=700, **options)
    assert got.merges == expected.merges
    assert got.vocab == expected.vocab and got.special_tokens == expected.special_tokens
    assert got.training["corpus"] == expected.training["corpus"]


def test_a_client_is_used_as_is_and_progress_reaches_the_total(cluster, corpus):
    distributed = pytest.importorskip("distributed")
    seen = []
    with distributed.Client(cluster) as client:
        got = bd.count_on_dask(corpus, scheduler=client, partition_bytes=500, progress=lambda *a: seen.append(a))
        assert client.status == "running"  # not closed: the caller's
    _same(got, _in_process(corpus))
    total = sum(os.path.getsize(p) for p in corpus)
    assert seen[0] == ("count", 0, total) and seen[-1] == ("count", total, total)


def test_bad_addresses_fail_at_once_with_the_fix(corpus):
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match=r"not a Dask scheduler address .* tcp://host:8786"):
        bd.count_on_dask(corpus, scheduler="nonsense")
    with pytest.raises(ValueError, match="not a Dask scheduler address"):
        bd.count_on_dask(corpus, scheduler="http://localhost:8786")
    with pytest.raises(TypeError, match="scheduler must be an address"):
        bd.count_on_dask(corpus, scheduler=8786)
    with pytest.raises(ValueError, match="workers applies only to the local cluster"):
        bd.count_on_dask(corpus, scheduler="tcp://127.0.0.1:8786", workers=2)
    with pytest.raises(ValueError, match="vocab_size=100 is too small"):  # checked before any cluster
        bd.train_on_dask(corpus, 100, scheduler="tcp://127.0.0.1:1")


def test_an_unreachable_scheduler_times_out_with_the_fix(corpus):
    pytest.importorskip("distributed")
    unanswered = r"no Dask scheduler answered at tcp://127\.0\.0\.1:1 within 1 s.*dask scheduler"
    with pytest.raises(ValueError, match=unanswered):
        bd.count_on_dask(corpus, scheduler="tcp://127.0.0.1:1", timeout=1)


def test_a_failed_connection_leaves_no_half_made_client_behind(corpus):
    """A Client that could not connect has started its event loop; left for a later garbage collection,
    its finalizer can run inside the next Client's start, under the loop lock it needs to stop: the
    process hangs. bpe_core finalizes it before the error reaches the caller."""
    distributed = pytest.importorskip("distributed")

    def clients() -> set[int]:
        return {id(o) for o in gc.get_objects() if isinstance(o, distributed.Client)}

    before = clients()
    for address in ("nonsense", "http://localhost:8786", "tcp://127.0.0.1:1"):
        with pytest.raises(ValueError):
            bd.count_on_dask(corpus, scheduler=address, timeout=1)
    assert not clients() - before


def test_missing_inputs_and_bad_settings_are_refused_before_any_work(corpus, tmp_path):
    with pytest.raises(ValueError, match="is not a readable file"):
        bd.count_on_dask([str(tmp_path / "nope.txt")])
    with pytest.raises(ValueError, match="no input files"):
        bd.count_on_dask([])
    with pytest.raises(ValueError, match="partition_bytes"):
        bd.count_on_dask(corpus, scheduler=None, partition_bytes=0)
    with pytest.raises(ValueError, match="on_bad_row"):
        bd.count_on_dask(corpus, on_bad_row="ignore")


@contextlib.contextmanager
def _cluster_processes(tmp_path, *, scheduler_path: str, worker_path: str):
    """A scheduler and one worker as subprocesses (no event loop in the test's own process), each with its own
    PYTHONPATH; yields the scheduler's address. Both listen on the loopback only: a worker left to pick its
    own interface may advertise an address the scheduler cannot reach on a sandboxed machine."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": tmp_path}
    scheduler = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--no-dashboard",
        ],
        env={**os.environ, "PYTHONPATH": scheduler_path},
        **quiet,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "distributed.cli.dask_worker",
            f"tcp://127.0.0.1:{port}",
            "--nthreads",
            "1",
            "--no-nanny",
            "--no-dashboard",
            "--host",
            "127.0.0.1",
        ],
        env={**os.environ, "PYTHONPATH": worker_path},
        **quiet,
    )
    try:
        yield f"tcp://127.0.0.1:{port}"
    finally:
        for process in (worker, scheduler):
            process.terminate()
            process.wait(timeout=30)


def _fake_bpe_core(tmp_path, where: str) -> str:
    """A folder whose bpe_core fails to import, to put first on a subprocess's path."""
    fake = tmp_path / "fake" / "bpe_core"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(f"raise ImportError('simulated: no bpe_core {where}')\n")
    return str(tmp_path / "fake")


def test_workers_without_bpe_core_are_named(tmp_path, corpus):
    """A worker whose environment cannot import bpe_core: the check says to install it there."""
    pytest.importorskip("distributed")
    root = os.path.dirname(os.path.dirname(bpe_core.__file__))
    fake = _fake_bpe_core(tmp_path, "on this worker")
    with _cluster_processes(tmp_path, scheduler_path=root, worker_path=fake) as address:
        with pytest.raises(ValueError, match=r"cannot run bpe_core .* install bpe_core"):
            bd.count_on_dask(corpus, scheduler=address, timeout=30)


def test_a_scheduler_without_workers_says_to_start_some(corpus):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=0,
        processes=False,
        dashboard_address=None,
        silence_logs=50,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its HTTP server on a free port: no warning
    ) as empty:
        with pytest.raises(ValueError, match=r"has no worker after 1 s: start some with `dask worker"):
            bd.count_on_dask(corpus, scheduler=empty.scheduler_address, timeout=1)


def test_a_scheduler_without_bpe_core_is_named(tmp_path, corpus):
    """The scheduler unpickles what the client sends: one without bpe_core is named, with the fix."""
    pytest.importorskip("distributed")
    root = os.path.dirname(os.path.dirname(bpe_core.__file__))
    fake = _fake_bpe_core(tmp_path, "on the scheduler")
    with _cluster_processes(tmp_path, scheduler_path=fake, worker_path=root) as address:
        with pytest.raises(
            ValueError,
            match=r"Dask scheduler .* cannot run bpe_core .*no bpe_core on the scheduler"
            r".* install bpe_core .* the scheduler's environment",
        ):
            bd.count_on_dask(corpus, scheduler=address, timeout=30)


def test_parquet_columns_are_checked_before_any_cluster_is_reached(tmp_path, corpus):
    """As in train_files: a Parquet file without the text column fails before connecting (port 1 never answers)."""
    pytest.importorskip("distributed")
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"n": [1]}), tmp_path / "b.parquet")
    with pytest.raises(ValueError, match="no column 'text'"):
        bd.count_on_dask([*corpus, str(tmp_path / "b.parquet")], scheduler="tcp://127.0.0.1:1", timeout=1)
    with pytest.raises(ValueError, match="no column 'body'"):
        bd.train_on_dask([tmp_path / "b.parquet"], 300, text_field="body", scheduler="tcp://127.0.0.1:1", timeout=1)


def test_a_failed_local_dask_run_is_one_line_without_worker_tracebacks(tmp_path):
    """A task failing on a worker of the local cluster: stderr is the one `error:` line, no worker log."""
    pytest.importorskip("distributed")
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)) * 8)
    root = os.path.dirname(os.path.dirname(bpe_core.__file__))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bpe_core",
            "train",
            str(tmp_path / "binary.bin"),
            "--vocab-size",
            "300",
            "-o",
            str(tmp_path / "x.json"),
            "--dask",
            "--dask-workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": root},
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ") and "not valid UTF-8" in result.stderr
    assert "Traceback" not in result.stderr and "ERROR" not in result.stderr, result.stderr


def test_train_on_dask_records_the_counting_in_its_seconds(monkeypatch, corpus):
    """training["seconds"] runs from the call's start, as train_files' does (not from the end of the counting)."""
    import time

    def slow_count(inputs, **_):
        time.sleep(0.5)
        return _in_process(inputs)

    monkeypatch.setattr(bd, "count_on_dask", slow_count)
    tokenizer = bd.train_on_dask(corpus, 300)
    assert tokenizer.training["seconds"] >= 0.5
    assert tokenizer.merges == bpe_core.train_files(corpus, 300).merges


@pytest.mark.parametrize("block_bytes", [1, 2, 5, 1 << 20])
def test_a_range_is_read_from_a_characters_start_with_file_offsets(tmp_path, block_bytes):
    """_read_text is corpus.iter_text_blocks on the range: text from the first character start at or
    after `start`, each offset the file offset after its text (a character boundary)."""
    data = "aé数🙂 b\n".encode() * 20
    path = _write(tmp_path, "r.txt", data.decode())
    for start in range(0, 24):
        first = next(i for i in range(start, len(data) + 1) if i == len(data) or (data[i] & 0xC0) != 0x80)
        for end in (None, len(data) - 10):
            pieces = list(bd._read_text(path, start, end, block_bytes=block_bytes))
            stop = len(data) if end is None else end
            assert "".join(text for text, _ in pieces) == data[first:stop].decode()
            done = first
            for text, offset in pieces:
                done += len(text.encode())
                assert offset == done
            assert done == stop


def test_a_byte_order_mark_is_dropped_at_the_file_start_only_in_every_partition_plan(tmp_path):
    """The mark at offset 0 is not text; a second one (or one at a range's start) is, as in-process."""
    text = "\ufeffword \ufeff two\n\ufeff" * 5
    path = _write(tmp_path, "m.txt", text, encoding_prefix=b"\xef\xbb\xbf")
    expected = _in_process([path])
    assert expected.counts == count_words([text], pretokenizer=PreTokenizer.build("gpt2")).counts
    for partition_bytes in range(1, 30):
        _same(_count_locally([path], pattern="gpt2", specials=(), partition_bytes=partition_bytes), expected)


BAD_SETTINGS = [
    ({"vocab_size": 100}, ValueError),
    ({"vocab_size": 300.0}, TypeError),
    ({"min_frequency": -1}, ValueError),
    ({"tie_break": "random"}, ValueError),
    ({"special_tokens": [""]}, ValueError),
]


@pytest.mark.parametrize("bad, error", BAD_SETTINGS)
def test_train_on_dask_checks_settings_as_train_files_does_before_any_cluster(corpus, bad, error):
    """One check (training.check_settings) for every way of training: the same error, and no cluster
    reached (port 1 never answers, so a check after connecting would time out instead)."""
    bad = dict(bad)
    vocab_size = bad.pop("vocab_size", 300)
    with pytest.raises(error) as expected:
        bpe_core.train_files(corpus, vocab_size, **bad)
    with pytest.raises(error) as got:
        bd.train_on_dask(corpus, vocab_size, scheduler="tcp://127.0.0.1:1", timeout=1, **bad)
    assert str(got.value) == str(expected.value)


def test_train_on_dask_names_itself_for_a_keyword_it_does_not_take(corpus):
    with pytest.raises(TypeError, match=r"train_on_dask\(\) got an unexpected keyword argument 'min_freq'"):
        bd.train_on_dask(corpus, 300, min_freq=1, scheduler="tcp://127.0.0.1:1", timeout=1)


def test_plan_partitions_uses_the_sizes_it_is_given(tmp_path, monkeypatch):
    """count_on_dask hands over DocumentReader's sizes: planning stats no file again."""
    text = _write(tmp_path, "a.txt", "word " * 100)
    jsonl = _write(tmp_path, "a.jsonl", '{"text": "word"}\n' * 100)

    def no_stat(path):
        raise AssertionError(f"{path} looked up again")

    monkeypatch.setattr(bd.os.path, "getsize", no_stat)
    planned = bd.plan_partitions([text, jsonl], pattern="gpt2", partition_bytes=100, sizes=[500, 1700])
    assert [(p.start, p.end, p.whole, p.size) for p in planned] == [
        (0, 100, False, 100),
        (100, 200, False, 100),
        (200, 300, False, 100),
        (300, 400, False, 100),
        (400, None, False, 100),
        (0, None, True, 1700),
    ]


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"text_field": ""}, "text_field must be"),
        ({"on_bad_row": "ignore"}, "on_bad_row must be"),
        ({"special_tokens": [""]}, "special token"),
    ],
)
def test_reading_options_are_checked_before_any_cluster_is_reached(corpus, bad, words):
    with pytest.raises(ValueError, match=words):
        bd.count_on_dask(corpus, scheduler="tcp://127.0.0.1:1", timeout=1, **bad)


class _SilentClient:
    """A Client stand-in whose workers registered but never answer a call (a stuck worker)."""

    def __init__(self):
        self.released = threading.Event()

    def wait_for_workers(self, n, timeout=None):
        return None

    def run(self, function, *args):
        self.released.wait()  # until the test ends: a check that waited for it would hang the test
        return {"tcp://w": "never"}

    run_on_scheduler = run


def test_workers_that_never_answer_the_version_check_are_an_error_not_a_hang(monkeypatch):
    monkeypatch.setattr(dask_cluster, "CHECK_TIMEOUT", 0.2)
    client = _SilentClient()
    try:
        with pytest.raises(ValueError, match=r"did not answer a version check within 0.2 s: check that the workers"):
            dask_cluster._check_workers(client, 0.1, "the scheduler at tcp://x:1", None)
    finally:
        client.released.set()


def test_a_check_that_answers_passes_its_answer_and_errors_through():
    assert dask_cluster._answer_within(5, "workers", lambda: {"a": 1}) == {"a": 1}
    with pytest.raises(KeyError):
        dask_cluster._answer_within(5, "workers", lambda: {}["missing"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("start", [0, 5])
def test_a_range_on_a_path_that_became_a_pipe_is_refused_not_awaited(tmp_path, start):
    """The client checked the inputs, but a worker opens them again on its own machine, where the path
    may name something else: a named pipe is refused there too, without blocking."""
    pipe = tmp_path / "corpus.txt"
    os.mkfifo(pipe)
    with pytest.raises(ValueError, match=r"named pipe .* not a regular file|is a named pipe"):
        list(bd._read_text(str(pipe), start, None))
