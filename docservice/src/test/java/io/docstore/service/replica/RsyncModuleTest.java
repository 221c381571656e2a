package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The primary's rsync module, as the real daemon started by {@code scripts/rsync-primary} serves it
 * (not a reading of its template): only segments and the replication manifest are listed or served
 * (a stray file, a subdirectory and a lock file in the queue directory are not), a path that climbs
 * out of the module stays in it, a write is refused, a host outside {@code hosts allow} is turned
 * away, and a port that is taken is named on stderr.
 */
class RsyncModuleTest {

  @TempDir Path tmp;

  @Test
  void onlySegmentsAndTheManifestAreServedAndNothingIsWritten() throws Exception {
    Path queue = Files.createDirectories(tmp.resolve("primary/queue"));
    Files.writeString(queue.resolve("replication.manifest"), "manifest");
    Files.writeString(queue.resolve("seg-0000000001.sealed"), "sealed");
    Files.writeString(queue.resolve("seg-0000000002.active"), "active");
    Files.writeString(queue.resolve("stray.txt"), "not for replicas");
    Files.writeString(queue.resolve("LOCK"), "");
    Files.createDirectories(queue.resolve("index")).resolve("MANIFEST").toFile().createNewFile();
    Files.writeString(tmp.resolve("primary/outside.txt"), "outside the module");
    try (RsyncDaemon daemon = RsyncDaemon.start(queue, tmp.resolve("primary/rsyncd"))) {
      Result list = rsync(daemon.url());
      assertThat(list.exit).as(list.out).isZero();
      assertThat(list.out)
          .contains("replication.manifest", "seg-0000000001.sealed", "seg-0000000002.active")
          .doesNotContain("stray.txt", "LOCK", "index", "outside.txt");

      Path into = Files.createDirectories(tmp.resolve("replica"));
      Result stray = rsync(daemon.url() + "stray.txt", into.toString());
      assertThat(stray.exit).as(stray.out).isNotZero();
      assertThat(into.resolve("stray.txt")).doesNotExist();

      Result escape = rsync(daemon.url() + "../");
      assertThat(escape.out).doesNotContain("outside.txt", "rsyncd");

      Path upload = Files.writeString(tmp.resolve("upload.txt"), "hostile");
      Result write = rsync(upload.toString(), daemon.url());
      assertThat(write.exit).isNotZero();
      assertThat(write.out).contains("read only");
      assertThat(queue.resolve("upload.txt")).doesNotExist();

      // A connection from an address outside "hosts allow" (127.0.0.1 by default): Linux routes
      // all of 127.0.0.0/8 to the loopback, so binding the client to 127.0.0.2 is a different
      // source host without a network namespace.
      Result denied = rsync("--address=127.0.0.2", daemon.url());
      assertThat(denied.exit).as(denied.out).isNotZero();
      assertThat(denied.out).contains("@ERROR").doesNotContain("seg-0000000001.sealed");
      Path deniedInto = Files.createDirectories(tmp.resolve("denied"));
      Result deniedFetch =
          rsync(
              "--address=127.0.0.2", daemon.url() + "seg-0000000001.sealed", deniedInto.toString());
      assertThat(deniedFetch.exit).as(deniedFetch.out).isNotZero();
      assertThat(deniedInto.resolve("seg-0000000001.sealed")).doesNotExist();

      int port = Integer.parseInt(daemon.url().replaceAll(".*:(\\d+)/.*", "$1"));
      Process second =
          new ProcessBuilder(
                  RsyncDaemon.scripts().resolve("rsync-primary").toString(),
                  "--queue",
                  queue.toString(),
                  "--port",
                  String.valueOf(port),
                  "--state-dir",
                  tmp.resolve("second").toString())
              .redirectErrorStream(true)
              .start();
      String out = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(second.waitFor()).as(out).isEqualTo(2);
      assertThat(out).contains(port + " is already in use").contains("--port");
    }
  }

  private record Result(int exit, String out) {}

  private static Result rsync(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("rsync", "--contimeout=5", "--timeout=10"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Result(p.waitFor(), out);
  }
}
