from irdata.atomic import write_json_atomic
from irdata.downstream.compare import compare, finding
from irdata.json_files import read_json
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    p = snakemake.params
    evaluations = {}
    for (base, model, collection), path in zip(p.evaluations, snakemake.input.evaluations):
        evaluations.setdefault(base, {}).setdefault(model, {})[collection] = read_json(path)
    trainings = {}
    for (base, arm), path in zip(p.trainings, snakemake.input.trainings):
        trainings.setdefault(base, {})[arm] = read_json(path)
    result = compare(evaluations, trainings, read_json(snakemake.input.training_set), p.settings)
    write_json_atomic(snakemake.output[0], result)
    log.info("downstream comparison: %s", finding(result))
