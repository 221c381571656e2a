package io.docstore.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.Future;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

/**
 * The README's "Use it from Java" section: its Java example compiles, as written, against the
 * client's own class path (this module and its Netty and SLF4J jars, nothing else), and its Maven
 * snippet names this artifact at this version.
 */
class ReadmeExampleTest {

  private static final String SECTION = "## Use it from Java";

  @TempDir Path out;

  /** The section of the README (tests run in the module's directory). */
  private static String section() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    int start = readme.indexOf(SECTION);
    assertThat(start).as("README has a section '%s'", SECTION).isNotNegative();
    int end = readme.indexOf("\n## ", start + SECTION.length());
    return readme.substring(start, end < 0 ? readme.length() : end);
  }

  private static String block(String text, String lang) {
    Matcher m = Pattern.compile("```" + lang + "\n(.*?)```", Pattern.DOTALL).matcher(text);
    assertThat(m.find()).as("a ```%s block", lang).isTrue();
    return m.group(1);
  }

  private static String jarOf(Class<?> c) throws URISyntaxException {
    return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
  }

  @Test
  void theJavaExampleCompilesAgainstTheClientAlone() throws Exception {
    String source = block(section(), "java");
    Matcher name = Pattern.compile("public class (\\w+)").matcher(source);
    assertThat(name.find()).as("the example is a public class").isTrue();
    Path file = out.resolve(name.group(1) + ".java");
    Files.writeString(file, source);
    List<String> classPath = new ArrayList<>();
    for (Class<?> c :
        List.of(
            DocClient.class,
            Bootstrap.class, // netty-transport
            ByteBuf.class, // netty-buffer
            Future.class, // netty-common
            ByteToMessageDecoder.class, // netty-codec-base
            Logger.class)) { // slf4j-api
      classPath.add(jarOf(c));
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
      boolean ok =
          javac
              .getTask(
                  null,
                  files,
                  diagnostics,
                  List.of(
                      "--release",
                      "17",
                      "-Xlint:all",
                      "-Werror",
                      "-classpath",
                      String.join(File.pathSeparator, classPath),
                      "-d",
                      out.toString()),
                  null,
                  files.getJavaFileObjects(file))
              .call();
      assertThat(ok).as("javac: %s", diagnostics.getDiagnostics()).isTrue();
    }
    assertThat(out.resolve(name.group(1) + ".class")).exists();
  }

  @Test
  void theMavenSnippetNamesThisArtifactAndVersion() throws Exception {
    String xml = block(section(), "xml");
    assertThat(xml)
        .contains("<groupId>io.docstore</groupId>")
        .contains("<artifactId>docstore-client</artifactId>")
        .contains("<version>" + System.getProperty("docstore.version") + "</version>");
  }
}
