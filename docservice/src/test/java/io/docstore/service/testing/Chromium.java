package io.docstore.service.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real headless Chromium (Debian's {@code chromium}, installed by {@code scripts/install-deps})
 * driven over the Chrome DevTools Protocol on the JDK's WebSocket client: it opens pages, types and
 * clicks through input events as a user would, evaluates JavaScript in the page and takes
 * screenshots. Started with {@code --no-sandbox} (tests run as root) and a profile of its own;
 * {@link #close} kills it and its child processes. One page; not thread-safe.
 */
public final class Chromium implements AutoCloseable {

  private static final Duration STARTUP = Duration.ofSeconds(30);
  private static final Duration CALL = Duration.ofSeconds(30);

  private final Process process;
  private final WebSocket socket;
  private final ObjectMapper json = new ObjectMapper();
  private final AtomicInteger nextId = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<String> pageErrors = new CopyOnWriteArrayList<>();

  /** The {@code chromium} program on the PATH, if installed. */
  public static Optional<Path> program() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      for (String name : List.of("chromium", "chromium-browser")) {
        Path p = Path.of(dir, name);
        if (Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Starts Chromium with its profile and log under {@code dir} and connects to its blank page.
   *
   * @throws IllegalStateException when Chromium is not installed
   */
  public static Chromium start(Path dir) throws IOException, InterruptedException {
    Path program =
        program()
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "chromium is not installed: run scripts/install-deps"));
    Path profile = Files.createDirectories(dir.resolve("profile"));
    Process p =
        new ProcessBuilder(
                program.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--hide-scrollbars",
                "--window-size=1280,900",
                "--remote-debugging-port=0",
                "--user-data-dir=" + profile,
                "about:blank")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("chromium.log").toFile())
            .start();
    try {
      return new Chromium(p, profile, dir.resolve("chromium.log"));
    } catch (IOException | InterruptedException | RuntimeException e) {
      kill(p);
      throw e;
    }
  }

  private Chromium(Process process, Path profile, Path log)
      throws IOException, InterruptedException {
    this.process = process;
    // Chromium writes its port and browser path here once it listens (port 0: a free one).
    Path active = profile.resolve("DevToolsActivePort");
    long deadline = System.nanoTime() + STARTUP.toNanos();
    List<String> lines = List.of();
    while (lines.size() < 2) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "chromium did not open its DevTools port; its log:\n" + Files.readString(log));
      }
      Thread.sleep(50);
      if (Files.exists(active)) {
        lines = Files.readAllLines(active);
      }
    }
    HttpClient http = HttpClient.newHttpClient();
    JsonNode targets =
        json.readTree(
            http.send(
                    HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + lines.get(0).trim() + "/json/list"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
    String page = null;
    for (JsonNode t : targets) {
      if (t.path("type").asText().equals("page")) {
        page = t.get("webSocketDebuggerUrl").asText();
        break;
      }
    }
    if (page == null) {
      throw new IllegalStateException("chromium has no page to drive: " + targets);
    }
    try {
      socket =
          http.newWebSocketBuilder()
              .buildAsync(URI.create(page), new Listener())
              .get(STARTUP.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("could not connect to chromium's page " + page, e);
    }
    call("Runtime.enable", Map.of());
    call("Page.enable", Map.of());
  }

  /** Collects a message's frames and hands each complete message to {@link #received}. */
  private final class Listener implements WebSocket.Listener {
    private final StringBuilder message = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      message.append(data);
      if (last) {
        received(message.toString());
        message.setLength(0);
      }
      ws.request(1);
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      pending.values().forEach(f -> f.completeExceptionally(error));
    }
  }

  private void received(String text) {
    JsonNode m;
    try {
      m = json.readTree(text);
    } catch (IOException e) {
      pageErrors.add("unreadable DevTools message: " + text);
      return;
    }
    if (m.has("id")) {
      CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
      if (f != null) {
        if (m.has("error")) {
          f.completeExceptionally(new IllegalStateException("DevTools: " + m.get("error")));
        } else {
          f.complete(m.get("result"));
        }
      }
    } else if (m.path("method").asText().equals("Runtime.exceptionThrown")) {
      pageErrors.add(m.path("params").path("exceptionDetails").toString());
    }
  }

  /** One DevTools command and its result. */
  public JsonNode call(String method, Map<String, ?> params)
      throws IOException, InterruptedException {
    int id = nextId.incrementAndGet();
    ObjectNode msg = json.createObjectNode();
    msg.put("id", id);
    msg.put("method", method);
    msg.set("params", json.valueToTree(params));
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(id, answer);
    socket.sendText(json.writeValueAsString(msg), true).join();
    try {
      return answer.get(CALL.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException(method + " failed", e);
    } finally {
      pending.remove(id);
    }
  }

  /** Opens {@code url} and waits until the page has loaded. */
  public void open(String url) throws IOException, InterruptedException {
    call("Page.navigate", Map.of("url", url));
    waitUntil("document.readyState === 'complete' && location.href === " + quote(url));
  }

  /** The value of a JavaScript expression evaluated in the page (promises awaited). */
  public JsonNode eval(String expression) throws IOException, InterruptedException {
    JsonNode r =
        call(
            "Runtime.evaluate",
            Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
    if (r.has("exceptionDetails")) {
      throw new IllegalStateException(expression + " threw: " + r.get("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  /** {@link #eval}'s value as text. */
  public String text(String expression) throws IOException, InterruptedException {
    return eval(expression).asText();
  }

  /** Waits up to 20 s until the expression is true in the page; fails naming it otherwise. */
  public void waitUntil(String expression) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!eval("Boolean(" + expression + ")").asBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "the page never came to: "
                + expression
                + "\nits text:\n"
                + text("document.body.innerText")
                + "\nits uncaught exceptions: "
                + pageErrors);
      }
      Thread.sleep(100);
    }
  }

  /** A left click in the middle of the element {@code selector} names, as mouse events. */
  public void click(String selector) throws IOException, InterruptedException {
    JsonNode at =
        eval(
            "(() => { const e = document.querySelector("
                + quote(selector)
                + "); e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                + " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()");
    for (String type : List.of("mousePressed", "mouseReleased")) {
      call(
          "Input.dispatchMouseEvent",
          Map.of(
              "type",
              type,
              "x",
              at.get("x").asDouble(),
              "y",
              at.get("y").asDouble(),
              "button",
              "left",
              "clickCount",
              1));
    }
  }

  /** Clicks into the field {@code selector} names, selects what it holds and types {@code text}. */
  public void type(String selector, String text) throws IOException, InterruptedException {
    click(selector);
    eval("document.querySelector(" + quote(selector) + ").select()");
    call("Input.insertText", Map.of("text", text));
  }

  /** The page as a PNG. */
  public void screenshot(Path png) throws IOException, InterruptedException {
    JsonNode shot = call("Page.captureScreenshot", Map.of("format", "png"));
    Files.createDirectories(png.toAbsolutePath().getParent());
    Files.write(png, Base64.getDecoder().decode(shot.get("data").asText()));
  }

  /** Uncaught exceptions of the page's scripts so far. */
  public List<String> pageErrors() {
    return List.copyOf(pageErrors);
  }

  private String quote(String s) throws IOException {
    return json.writeValueAsString(s);
  }

  /** Kills Chromium and every process it started. */
  @Override
  public void close() {
    socket.abort();
    kill(process);
  }

  private static void kill(Process p) {
    List<ProcessHandle> all = new ArrayList<>();
    p.descendants().forEach(all::add);
    p.destroyForcibly();
    all.forEach(ProcessHandle::destroyForcibly);
    try {
      p.waitFor(10, TimeUnit.SECONDS);
      for (ProcessHandle h : all) {
        h.onExit().get(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("a chromium process outlived its kill", e);
    }
  }
}
