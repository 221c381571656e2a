package io.docstore.service.cli;

import io.docstore.io.TestSupport;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A {@code docstore serve} child JVM on free loopback ports, with the URLs it printed. */
final class ServeProcess implements AutoCloseable {

  final Process process;
  final String readUrl;
  final String adminUrl;

  private ServeProcess(Process process, String readUrl, String adminUrl) {
    this.process = process;
    this.readUrl = readUrl;
    this.adminUrl = adminUrl;
  }

  static ServeProcess start(Path data, String... extraJvmArgs) throws IOException {
    List<String> jvm =
        new ArrayList<>(
            List.of(
                "-Ddocstore.http.read.port=0",
                "-Ddocstore.http.admin.port=0",
                "-Ddocstore.rpc.port=0",
                "-Ddocstore.index.checkpoint-interval=300ms",
                io.docstore.service.torture.ServeJvm.SMALL_CACHES,
                "-XX:MaxDirectMemorySize=1g")); // the default document cache is off the heap
    jvm.addAll(List.of(extraJvmArgs));
    Process p = TestSupport.startJvm(Main.class, jvm, "serve", "--data", data.toString());
    BufferedReader out = TestSupport.stdout(p);
    String read = null;
    String admin = null;
    String line;
    while ((read == null || admin == null) && (line = out.readLine()) != null) {
      String t = line.trim();
      if (t.startsWith("read ")) {
        read = t.split("\\s+")[1].replace("/docs/{id}", "");
      } else if (t.startsWith("admin ")) {
        admin = t.split("\\s+")[1].replaceAll("/docs/\\{id}.*", "");
      }
    }
    if (read == null || admin == null) {
      p.destroyForcibly();
      throw new IOException(
          "serve did not print its URLs (exit " + (p.isAlive() ? "-" : p.exitValue()) + ")");
    }
    // Keep draining stdout so the child never blocks on a full pipe.
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // discard
                }
              } catch (IOException e) {
                // the child is gone
              }
            },
            "serve-stdout");
    drain.setDaemon(true);
    drain.start();
    return new ServeProcess(p, read, admin);
  }

  void kill9() throws InterruptedException {
    TestSupport.kill9(process);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      TestSupport.kill9(process);
    }
  }
}
