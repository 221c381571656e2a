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
    long resurrected,
    long recoveryMillis,
    String extra) {

  /** A scenario without a ledger of versions: it counts failures, not resurrections. */
  Verdict(
      String scenario,
      int iterations,
      long faults,
      long acknowledged,
      long verified,
      long lost,
      long recoveryMillis,
      String extra) {
    this(scenario, iterations, faults, acknowledged, verified, lost, -1, recoveryMillis, extra);
  }

  /** A scenario checked by {@code ledger}: its losses and resurrections counted apart. */
  static Verdict of(
      String scenario,
      int iterations,
      long faults,
      AckLedger ledger,
      long verified,
      long recoveryMillis,
      String extra) {
    return new Verdict(
        scenario,
        iterations,
        faults,
        ledger.acknowledged(),
        verified,
        ledger.lost(),
        ledger.resurrected(),
        recoveryMillis,
        extra);
  }

  String line() {
    return String.format(
        "TORTURE %-22s %s iterations=%d faults=%d acknowledged=%d verified=%d lost=%d%s"
            + " recovery_max_ms=%d%s",
        scenario,
        lost == 0 && resurrected <= 0 ? "PASS" : "FAIL",
        iterations,
        faults,
        acknowledged,
        verified,
        lost,
        resurrected < 0 ? "" : " resurrected=" + resurrected,
        recoveryMillis,
        extra.isEmpty() ? "" : " " + extra);
  }

  Verdict print() {
    System.out.println(line());
    return this;
  }
}
