"""Teach a checkout built before code identities its jobs' new `code` params, so that nothing reruns but what changed.

    .venv/bin/python tools/upgrade_code_identity.py --configfile config.yaml [overlay.yaml ...] [TARGET ...]

Run it with the checkout's tools/ (its Snakefile plans), in the working folder of the build (or give --directory,
as `snakemake -d`), with the config files the build was made with, after updating the checkout and before the next
run. A job whose recorded code is the old scheme's hash of its files as they are now
gets its new identity; every other job keeps its record and reruns as before (irdata/code_upgrade.py). Running it
twice changes nothing more. Prints how many jobs were upgraded, already current, left to rerun and not built.
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help="the targets the build was made for (default: the Snakefile's)")
    parser.add_argument("--configfile", nargs="+", default=[], help="the config files the build was made with")
    parser.add_argument("--directory", "-d", type=Path, default=Path.cwd(), help="the build's working folder")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "workflow_scripts"))
    from irdata.code_upgrade import summary, upgrade_checkout

    print(summary(upgrade_checkout(ROOT / "Snakefile", args.directory, args.configfile, args.targets)))


if __name__ == "__main__":
    main()
