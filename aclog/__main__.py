"""``python -m aclog``: the ``aclog`` command, for when the console script is not on ``PATH``."""

from aclog.tools.main import main

if __name__ == "__main__":
    main()
