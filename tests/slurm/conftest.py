"""Show why the SLURM tests were skipped even without `-rs`: a skip must never look like a pass."""


def pytest_terminal_summary(terminalreporter):
    reasons = set()
    for report in terminalreporter.stats.get("skipped", []):
        if "tests/slurm/" in report.nodeid.replace("\\", "/") or "test_slurm_workflow" in str(report.location[0]):
            reasons.add(str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr))
    for reason in sorted(reasons):
        terminalreporter.write_line(f"SLURM tests SKIPPED: {reason}", yellow=True, bold=True)
