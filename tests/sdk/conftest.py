"""The SDK is its own distribution (sdk/python); the tests import it from there, as `pip install` would."""

from __future__ import annotations

import sys
from pathlib import Path

SDK = Path(__file__).resolve().parents[2] / "sdk" / "python"
if str(SDK) not in sys.path:
    sys.path.insert(0, str(SDK))
