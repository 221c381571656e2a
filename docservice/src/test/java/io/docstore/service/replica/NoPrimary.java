package io.docstore.service.replica;

import java.time.Duration;

/**
 * A replica's settings whose primary never answers (port 1): for tests of what a replica does on
 * its own (its ports, its metrics, its shutdown), with fast pulls and timeouts.
 */
public final class NoPrimary {

  private NoPrimary() {}

  public static ReplicaConfig config() {
    return new ReplicaConfig(
        "rsync://127.0.0.1:1/docstore/",
        Duration.ofMillis(50),
        Duration.ofSeconds(5),
        Duration.ofMillis(200),
        Duration.ofSeconds(10),
        "rsync");
  }
}
