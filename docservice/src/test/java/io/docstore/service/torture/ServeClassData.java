package io.docstore.service.torture;

import io.docstore.service.cli.Main;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The class path and flags {@link ServeJvm} starts its children with: a class-data archive (the
 * JVM's CDS) of a {@code docstore serve}, made once per test JVM by a serve that archives the
 * classes it loaded when it stops. A child started from it maps its classes already parsed and
 * verified: 0.8-1.1 s to serve instead of 1.3-1.6 s on the reference machine, which the kill tests
 * pay at every restart. The JVM archives classes only from JARs, so the class directories of this
 * JVM's class path (the module's own classes) are packed into JARs first. If anything fails the
 * children get the plain class path: the archive changes how fast they start, never what runs.
 */
final class ServeClassData {

  private ServeClassData() {}

  /** The class path (a {@code -cp} value) and the flags before it. */
  record Launch(String classPath, List<String> flags) {}

  private static Launch made;

  /** The archive's launch, made on the first call; the plain class path if it cannot be made. */
  static synchronized Launch launch(List<String> baseFlags) {
    if (made == null) {
      String plain = System.getProperty("java.class.path");
      try {
        made = make(plain, baseFlags);
      } catch (IOException | RuntimeException e) {
        System.err.println("ServeClassData: children start without a class-data archive: " + e);
        made = new Launch(plain, List.of());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        made = new Launch(plain, List.of());
      }
    }
    return made;
  }

  private static Launch make(String plain, List<String> baseFlags)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("docstore-serve-cds");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
    List<String> entries = new ArrayList<>();
    int n = 0;
    for (String entry : plain.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (Files.isDirectory(p)) {
        Path jar = dir.resolve("classes-" + n++ + ".jar");
        pack(p, jar);
        entries.add(jar.toString());
      } else if (Files.isRegularFile(p)) {
        entries.add(entry); // the JVM refuses to archive with entries that do not exist
      }
    }
    String classPath = String.join(File.pathSeparator, entries);
    Path archive = dir.resolve("serve.jsa");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(baseFlags);
    cmd.add("-XX:ArchiveClassesAtExit=" + archive);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(Main.class.getName());
    cmd.addAll(List.of("serve", "--data", dir.resolve("data").toString()));
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && !line.trim().startsWith("rpc ")) {
        // the URLs come once the store has recovered and every port listens
      }
      // SIGTERM (a clean stop, at which the JVM writes the archive), the pipes left open
      p.toHandle().destroy();
      while (out.readLine() != null) {
        // drain until it exits
      }
    }
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("the archiving serve did not stop");
    }
    if (!Files.isRegularFile(archive) || Files.size(archive) == 0) {
      throw new IOException("no archive written (exit " + p.exitValue() + ")");
    }
    return new Launch(classPath, List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off"));
  }

  /** Packs the files under {@code classes} into {@code jar}, paths relative to it. */
  private static void pack(Path classes, Path jar) throws IOException {
    try (OutputStream os = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(os);
        Stream<Path> files = Files.walk(classes)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }
}
