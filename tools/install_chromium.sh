#!/usr/bin/env bash
# Installs Debian's chromium, the headless browser the report's test opens report.html in
# (tests/report_browser.py). A machine that has it installs nothing; otherwise it needs root (CI runs as root).
set -euo pipefail
if command -v chromium >/dev/null; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "chromium is missing and installing it needs root: sudo apt-get install -y chromium" >&2
    exit 1
fi
install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }
install || { apt-get update -q && install; }
command -v chromium >/dev/null
