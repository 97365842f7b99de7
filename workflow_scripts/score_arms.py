from irdata.eval44b.score import run_arm
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i, p = snakemake.input, snakemake.params
    # The LLM arm's settings add the connection settings from the config (servers, timeouts: no output), its
    # prompt file and its retry state and generation (irdata/annotate/common.py); not yet job_args(snakemake),
    # whose LLM job takes another settings key and journal name than this arm's (irdata.eval44b.llm_arm.arm_job).
    settings = {**p.settings, "llm_config": snakemake.config["llm"], "retry_state": p.retry_state, "retry": p.retry,
                **({"prompt": i.prompt_pair} if "prompt_pair" in i.keys() else {})}
    result = run_arm(arm=snakemake.wildcards.e44arm, mined=i.mined, queries=i.queries, collection=i.collection,
                     result=snakemake.output.result, settings=settings, training=i.get("training"))
    log.info(
        "arm %s on %d queries (%d unranked: a candidate not scored): %s, %s ms/query",
        result["arm"],
        result["queries"],
        result["queries_unranked"],
        result["metrics"],
        result["ms_per_query"],
    )
