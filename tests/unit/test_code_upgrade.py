"""The upgrade of a checkout built before code identities (irdata/code_upgrade.py) records a job's new identity only
when its code param is the one difference and the recorded value is the old hash of its files now. The upgrade of a
real built checkout: tests/workflow/test_demo_build.py."""

from irdata.code_upgrade import upgraded_params

SETTINGS = repr({"k": 1})
OLD, NEW = "a" * 20, "b" * 20


def test_a_job_built_from_these_bytes_learns_its_identity():
    assert upgraded_params(sorted([SETTINGS, repr(OLD)]), sorted([SETTINGS, repr(NEW)]), NEW, {OLD}) == \
        sorted([SETTINGS, repr(NEW)])


def test_a_job_whose_code_changed_since_it_ran_is_left_to_rerun():
    # the recorded hash is not the old hash of the files now: the bytes changed since the job ran
    assert upgraded_params([SETTINGS, repr("c" * 20)], [SETTINGS, repr(NEW)], NEW, {OLD}) is None
    # nothing of the old scheme was found for it (a rule whose code param covered more files)
    assert upgraded_params([SETTINGS, repr(OLD)], [SETTINGS, repr(NEW)], NEW, set()) is None


def test_a_job_whose_settings_changed_too_is_left_to_rerun():
    assert upgraded_params([repr({"k": 2}), repr(OLD)], [SETTINGS, repr(NEW)], NEW, {OLD}) is None
    assert upgraded_params([repr(OLD)], [SETTINGS, repr(NEW)], NEW, {OLD}) is None  # a param added since


def test_a_current_job_is_not_rewritten():
    assert upgraded_params([SETTINGS, repr(NEW)], [SETTINGS, repr(NEW)], NEW, {OLD}) is None
