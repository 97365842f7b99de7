#!/usr/bin/env bash
# Turn the base URLs that tools/slurm/vllm_server.sbatch jobs published into a config overlay.
#
#   bash tools/slurm/collect_base_urls.sh URL_DIR [--min N] [--wait SECONDS] [--model NAME]
#                                         [--api-key-env VAR] > llm_servers.yaml
#   snakemake --profile profiles/slurm --configfile llm_servers.yaml
#
# Reads URL_DIR/*.url, keeps the servers that answer GET <url>/models now, and prints YAML:
#   llm:
#     backend: openai
#     model: NAME          (only with --model; it must be the servers' served model name)
#     base_urls: [...]     (sorted; the workflow spreads requests over all of them)
# --min N (default 1): wait until at least N servers answer; --wait SECONDS (default 0) how long
# to wait for them (servers take minutes to load a model). Exits 1, printing nothing, if fewer
# than N answer in time. --api-key-env VAR: send the key in $VAR (servers started with VLLM_API_KEY).
set -euo pipefail
usage() { echo "usage: $0 URL_DIR [--min N] [--wait SECONDS] [--model NAME] [--api-key-env VAR]" >&2; exit 2; }
[ $# -ge 1 ] || usage
URL_DIR="$1"; shift
MIN=1; WAIT=0; MODEL=""; KEY_ENV=""
while [ $# -gt 0 ]; do
    case "$1" in
        --min) MIN="$2"; shift 2 ;;
        --wait) WAIT="$2"; shift 2 ;;
        --model) MODEL="$2"; shift 2 ;;
        --api-key-env) KEY_ENV="$2"; shift 2 ;;
        *) usage ;;
    esac
done
auth=()
if [ -n "$KEY_ENV" ]; then auth=(-H "Authorization: Bearer ${!KEY_ENV:?$KEY_ENV is not set}"); fi

live_urls() {
    local f url
    for f in "$URL_DIR"/*.url; do
        [ -f "$f" ] || continue
        url="$(head -n1 "$f" | tr -d '[:space:]')"
        case "$url" in http://*|https://*) ;; *) continue ;; esac
        if curl -sf --max-time 5 "${auth[@]}" "$url/models" >/dev/null 2>&1; then echo "$url"; fi
    done | sort -u
}

deadline=$((SECONDS + WAIT))
while :; do
    mapfile -t urls < <(live_urls)
    [ "${#urls[@]}" -ge "$MIN" ] && break
    if [ $SECONDS -ge $deadline ]; then
        echo "collect_base_urls: ${#urls[@]} server(s) answer in $URL_DIR, fewer than --min $MIN" >&2
        exit 1
    fi
    sleep 5
done

echo "# Written by tools/slurm/collect_base_urls.sh from $URL_DIR; pass with --configfile."
echo "llm:"
echo "  backend: openai"
[ -n "$MODEL" ] && echo "  model: \"$MODEL\""
[ -n "$KEY_ENV" ] && echo "  api_key_env: \"$KEY_ENV\""
echo "  base_urls:"
for url in "${urls[@]}"; do echo "    - \"$url\""; done
echo "collect_base_urls: ${#urls[@]} server(s): ${urls[*]}" >&2
