"""python -m mmagen ARGS, and the `mmagen` command a wheel installs: the
package's own mmagen program with ARGS."""
from ._tables import _main_cli


def main() -> None:
    _main_cli()


if __name__ == "__main__":
    main()
