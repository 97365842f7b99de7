from irdata.eval44b.score import run_arm
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_arm(
        snakemake.wildcards.e44arm,
        snakemake.input.mined,
        snakemake.input.queries,
        snakemake.input.collection,
        snakemake.output[0],
        # the LLM arm reads only the connection settings from the config (servers, timeouts: no output)
        # the LLM arm's prompt file as the working folder reaches it (its settings name the workflow's)
        # its retry state and generation (the rule's params): see irdata/annotate/common.py
        {**snakemake.params.settings, "llm_config": snakemake.config["llm"],
         "retry_state": snakemake.params.retry_state, "retry": snakemake.params.retry,
         **({"prompt": snakemake.input.prompt_pair} if "prompt_pair" in snakemake.input.keys() else {})},
        training_report=snakemake.input.get("training"),
    )
    log.info(
        "arm %s on %d queries (%d unranked: a candidate not scored): %s, %s ms/query",
        result["arm"],
        result["queries"],
        result["queries_unranked"],
        result["metrics"],
        result["ms_per_query"],
    )
