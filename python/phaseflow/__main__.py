"""``python -m phaseflow ARGS``: the phaseflow command line, the same program as the binary
(``python -m phaseflow run --help``). Its exit status is the binary's: 0 success, 1 a runtime
failure, 2 bad input, 130 a run stopped by Ctrl-C after writing its checkpoint."""

import signal
import sys
from typing import List, Optional

from phaseflow import _phaseflow


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line with ``argv`` (default: this process's arguments) and return its
    exit status."""
    # The run catches SIGINT itself (a checkpoint, then exit status 130), as the binary does;
    # Python's handler would turn the same key press into a KeyboardInterrupt afterwards.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return int(_phaseflow.cli(list(sys.argv[1:] if argv is None else argv)))


if __name__ == "__main__":
    sys.exit(main())
