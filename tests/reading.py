"""The explanation contract every model keeps, as one check the suites
share (tests/contract/test_explain.py on the bundled data, tests/contract/test_contract.py on
random tables)."""


def check_reasons(model, explanations, data):
    """The explanation contract (README, "Why a row got its prediction"):
    the predicted class is the model's; the rules listed for it move it
    toward it (move > 0), largest first, then those against it (move < 0);
    where no rule supports it the text says what decided; on two classes
    each rule's printed head is the class it moves toward; on the log-odds
    scales the moves and the part without rules add up to the log-odds of
    the predicted class over the runner-up (a reader adds them); the Why
    box and the annotated data's Why column read the same reasons."""
    import numpy as np

    from orangecontrib.rules.viewer import explanation_text
    predicted = model(data)
    favours, against = model.rule_directions()
    two = len(model.domain.class_var.values) == 2
    why_column = explanation_text(model, data, top=5)
    for i, e in enumerate(explanations):
        why = e.reasons(model)
        assert why.predicted == int(predicted[i])
        moves = [m for _, m in why.supporting]
        assert all(m > 0 for m in moves) and moves == sorted(moves, reverse=True)
        moves = [m for _, m in why.opposing]
        assert all(m < 0 for m in moves) and moves == sorted(moves)
        assert {k for k, _ in why.supporting + why.opposing} <= set(e.rules.tolist())
        if why.without is not None and np.isfinite(why.without):
            p = e.probabilities()
            runner_up = np.delete(p, why.predicted).max()
            if 1e-12 < runner_up and p[why.predicted] > 1e-12:
                total = why.without + sum(m for _, m in why.supporting + why.opposing)
                assert abs(total - np.log(p[why.predicted] / runner_up)) < 1e-6, (
                    total, p, why)
        lines = e.describe(model, top=5)
        cv = model.domain.class_var
        assert lines[0].startswith(f"{cv.name} = {cv.values[why.predicted]} ")
        if why.supporting:
            k, move = why.supporting[0]
            assert lines[1].strip().startswith(f"for: {move:+.3f}")
            assert f"rule {k + 1}," in lines[1]
        else:
            assert why.decided_by
            assert any("no firing rule supports it" in line for line in lines)
        rules_lines = [line.strip() for line in lines[1:]
                       if line.strip().startswith(("for:", "against:"))]
        sides = [line.split(":")[0] for line in rules_lines]
        assert sides == sorted(sides, key=lambda side: side != "for")  # for it first
        if two:
            for k, _ in why.supporting:
                assert favours[k] == why.predicted and not against[k], (k, lines)
            for k, _ in why.opposing:
                assert favours[k] != why.predicted, (k, lines)
        assert why_column[i] == "; ".join(line.strip() for line in lines)
