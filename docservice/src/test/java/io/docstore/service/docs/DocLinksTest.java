package io.docstore.service.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the README and under docs/ names a file or directory the repository holds.
 */
class DocLinksTest {

  /**
   * A markdown link's target: {@code [text](target)}, up to a space, a closing parenthesis or an
   * anchor.
   */
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s#]*)(#[^)\\s]*)?\\)");

  @Test
  void relativeLinksResolve() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent(); // tests run in the module's directory
    assertThat(root.resolve("README.md")).exists();
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
      s.filter(p -> p.toString().endsWith(".md")).forEach(pages::add);
    }
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      Matcher m = LINK.matcher(Files.readString(page));
      while (m.find()) {
        String target = m.group(1);
        if (target.isEmpty() || target.contains("://") || target.startsWith("mailto:")) {
          continue;
        }
        checked++;
        if (!Files.exists(page.getParent().resolve(target).normalize())) {
          broken.add(root.relativize(page) + " -> " + target);
        }
      }
    }
    assertThat(checked).as("links checked").isGreaterThan(20);
    assertThat(broken).as("links that name nothing in the repository").isEmpty();
  }
}
