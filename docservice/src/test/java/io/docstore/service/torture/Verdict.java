package io.docstore.service.torture;

/**
 * The one-line result of a scenario, printed for the log and for {@code docs/reliability.md}.
 *
 * @param recoveryMillis the longest time from a restart (or the end of a fault) to serving again
 */
record Verdict(
    String scenario,
    int iterations,
    long faults,
    long acknowledged,
    long verified,
    long lost,
    long recoveryMillis,
    String extra) {

  String line() {
    return String.format(
        "TORTURE %-22s %s iterations=%d faults=%d acknowledged=%d verified=%d lost=%d recovery_max_ms=%d%s",
        scenario,
        lost == 0 ? "PASS" : "FAIL",
        iterations,
        faults,
        acknowledged,
        verified,
        lost,
        recoveryMillis,
        extra.isEmpty() ? "" : " " + extra);
  }

  Verdict print() {
    System.out.println(line());
    return this;
  }
}
