"""bpe_core: exact, fast byte-level BPE tokenizers in Python (this file only re-exports the public API).

Train (``train``, ``train_files``), encode and decode (``Tokenizer``), save and load bpe_core's JSON,
convert to and from tiktoken, Hugging Face ``tokenizer.json``, GPT-2 ``vocab.json``/``merges.txt`` and
``.tiktoken`` files, get GPT-2, cl100k, o200k, Llama 3, Qwen, Mistral and DeepSeek offline by name (``load``), and step through training for teaching
(``trace``, ``textbook``), and train parity-aware BPE (``train_parity``) and set it against standard BPE
(``compare_training``). No UI code lives here: the package imports neither streamlit, plotly nor
pandas.
"""

from bpe_core.formats.gpt2_files import load_gpt2_files, save_gpt2_files
from bpe_core.formats.huggingface import load_huggingface, save_huggingface
from bpe_core.formats.tiktoken_file import load_tiktoken, save_tiktoken
from bpe_core.pretrained.catalogue import available, load
from bpe_core.training.parity import train_parity
from bpe_core.analysis.parity_report import compare_training
from bpe_core.pretokenization.pretokenizer import PRESETS
from bpe_core.pretrained.package_files import cl100k, cl100k_available, cl100k_encoding, gpt2, gpt2_encoding
from bpe_core.tokenizer import Tokenizer
from bpe_core.bpe.tokens import MergeRecord, TokenInfo, token_display
from bpe_core.training.trainer import count_words, train, train_files, train_from_counts

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "MergeRecord",
    "TokenInfo",
    "Tokenizer",
    "available",
    "cl100k",
    "cl100k_available",
    "cl100k_encoding",
    "compare_training",
    "count_words",
    "gpt2",
    "gpt2_encoding",
    "load",
    "load_gpt2_files",
    "load_huggingface",
    "load_tiktoken",
    "save_gpt2_files",
    "save_huggingface",
    "save_tiktoken",
    "token_display",
    "train",
    "train_files",
    "train_from_counts",
    "train_parity",
]
