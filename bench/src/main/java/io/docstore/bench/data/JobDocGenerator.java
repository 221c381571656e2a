package io.docstore.bench.data;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Realistic ~1.1 KB JSON job postings (title, company, location, salary, a description drawn from a
 * vocabulary), the document every docstore benchmark writes. Deterministic: the same seed and ID
 * give the same bytes, so a reader can verify what a writer wrote without keeping it.
 *
 * <p>Compressibility matches what was measured on real-looking postings (docs/background.md): about
 * 1.25x per document alone with LZ4 and about 2x over 4 KiB of consecutive documents.
 *
 * <p>{@link #JobDocGenerator(long, int)} makes documents of about a chosen size instead (the
 * service benchmark's {@code --doc-bytes}): the same fields, in the same order and drawn the same
 * way, up to the description, which grows or shrinks; from {@link #SECTIONS_FROM_BYTES} on, a
 * {@code requirements} array of short strings and a {@code benefits} string follow it, as in a full
 * posting of several KB. {@link #DEFAULT_DOC_BYTES} gives exactly the bytes of {@link
 * #JobDocGenerator(long)}.
 *
 * <p>Not thread-safe: one generator per thread.
 */
public final class JobDocGenerator {

  private static final String[] TITLES = {
    "Software Engineer",
    "Senior Software Engineer",
    "Registered Nurse",
    "Truck Driver",
    "Data Analyst",
    "Warehouse Associate",
    "Customer Service Representative",
    "Sales Manager",
    "Accountant",
    "Mechanical Engineer",
    "Retail Store Manager",
    "Medical Assistant",
    "Electrician",
    "Teacher",
    "Product Manager",
    "Line Cook",
    "Pharmacy Technician",
    "Marketing Coordinator",
    "Web Developer",
    "Administrative Assistant",
    "Forklift Operator",
    "Physical Therapist",
    "Security Officer",
  };
  private static final String[] COMPANIES = {
    "Acme Logistics",
    "Blue River Health",
    "Northwind Traders",
    "Contoso Systems",
    "Globex",
    "Initech",
    "Umbrella Retail",
    "Stark Manufacturing",
    "Wayne Hospitality",
    "Hooli",
    "Vandelay Industries",
    "Soylent Foods",
    "Cyberdyne Software",
    "Tyrell Biotech",
    "Wonka Confectionery",
    "Gringotts Bank",
  };
  private static final String[] CITIES = {
    "Austin, TX",
    "Seattle, WA",
    "New York, NY",
    "Chicago, IL",
    "Denver, CO",
    "Boston, MA",
    "Atlanta, GA",
    "Phoenix, AZ",
    "Portland, OR",
    "San Jose, CA",
    "Dublin",
    "London",
    "Tokyo",
    "Sydney",
    "Toronto, ON",
  };
  private static final String[] WORDS =
      ("we are looking for a motivated experienced team player to join our growing company the ideal "
              + "candidate will have strong communication skills attention to detail and the ability to work in a "
              + "fast paced environment responsibilities include managing daily operations supporting customers "
              + "collaborating with cross functional teams and improving processes requirements high school diploma "
              + "or equivalent bachelor degree preferred years of experience in a similar role benefits include "
              + "health dental vision insurance paid time off retirement plan with company match flexible schedule "
              + "tuition reimbursement employee discount career growth opportunities training provided full time "
              + "part time remote hybrid on site shift weekend availability required must be able to lift pounds "
              + "valid driver license background check equal opportunity employer safety quality customer focus "
              + "analytical problem solving leadership organization software tools reporting scheduling inventory "
              + "patients students clients vendors equipment maintenance documentation compliance standards")
          .split(" ");

  /** The size {@link #JobDocGenerator(long)} aims at: documents of about 900-1100 bytes. */
  public static final int DEFAULT_DOC_BYTES = 1000;

  /**
   * The smallest size accepted: the fields before the description alone take 200-300 bytes, so
   * below this the description would be empty or nearly so.
   */
  public static final int MIN_DOC_BYTES = 400;

  /**
   * From this size on, a document has {@code requirements} and {@code benefits} after its
   * description.
   */
  public static final int SECTIONS_FROM_BYTES = 2000;

  private final SplittableRandom random;
  private final int docBytes;

  /** Documents of about {@link #DEFAULT_DOC_BYTES}, the same bytes for the same seed as ever. */
  public JobDocGenerator(long seed) {
    this(seed, DEFAULT_DOC_BYTES);
  }

  /**
   * Documents of {@code docBytes} bytes give or take 100 (each one's size drawn uniformly from
   * [docBytes - 100, docBytes + 100), plus at most a word and the closing characters).
   *
   * @throws IllegalArgumentException if {@code docBytes} is below {@link #MIN_DOC_BYTES}
   */
  public JobDocGenerator(long seed, int docBytes) {
    if (docBytes < MIN_DOC_BYTES) {
      throw new IllegalArgumentException(
          "document size "
              + docBytes
              + " bytes is below the minimum of "
              + MIN_DOC_BYTES
              + " (the fields before the description take 200-300 bytes)");
    }
    this.random = new SplittableRandom(seed);
    this.docBytes = docBytes;
  }

  /** The size this generator aims at, in bytes. */
  public int docBytes() {
    return docBytes;
  }

  /**
   * The JSON document for {@code id} at {@code version}; same inputs, same bytes, whatever the
   * generator's state.
   */
  public static byte[] document(long id, int version) {
    return new JobDocGenerator(id * 31 + version).next(id);
  }

  /**
   * A new document for {@code id}: about {@link #docBytes()} bytes of UTF-8 JSON (by default about
   * 1 KB).
   */
  public byte[] next(long id) {
    StringBuilder sb = new StringBuilder(docBytes + 280);
    String title = pick(TITLES);
    sb.append("{\"id\":")
        .append(id)
        .append(",\"title\":\"")
        .append(title)
        .append('"')
        .append(",\"company\":\"")
        .append(pick(COMPANIES))
        .append('"')
        .append(",\"location\":\"")
        .append(pick(CITIES))
        .append('"');
    int low = 20_000 + random.nextInt(120) * 1_000;
    sb.append(",\"salary\":{\"min\":")
        .append(low)
        .append(",\"max\":")
        .append(low + random.nextInt(60) * 1_000)
        .append(",\"currency\":\"USD\",\"period\":\"year\"}")
        .append(",\"posted_at\":")
        .append(1_700_000_000_000L + random.nextInt(1_000_000_000))
        .append(",\"discovered_at\":")
        .append(1_700_000_000_000L + random.nextInt(1_000_000_000))
        .append(",\"description\":\"")
        .append(title)
        .append(". ");
    // For DEFAULT_DOC_BYTES: 900 + random.nextInt(200), the draws the default has always made.
    int target = docBytes - 100 + random.nextInt(200);
    if (docBytes < SECTIONS_FROM_BYTES) {
      words(sb, target);
    } else {
      // A full posting: the description about 55% of the document, the requirements about 25%,
      // the benefits the rest.
      words(sb, target * 55 / 100);
      sb.append("\",\"requirements\":[");
      int requirementsEnd = target * 80 / 100;
      do {
        if (sb.charAt(sb.length() - 1) != '[') {
          sb.append(',');
        }
        sb.append('"');
        int count = 3 + random.nextInt(6);
        for (int i = 0; i < count; i++) {
          if (i > 0) {
            sb.append(' ');
          }
          sb.append(pick(WORDS));
        }
        sb.append('"');
      } while (sb.length() < requirementsEnd);
      sb.append("],\"benefits\":\"");
      words(sb, target);
    }
    sb.append("\"}");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Appends words of the vocabulary, some ending a sentence, until {@code sb} is {@code length}
   * long.
   */
  private void words(StringBuilder sb, int length) {
    while (sb.length() < length) {
      sb.append(pick(WORDS));
      sb.append(random.nextInt(12) == 0 ? ". " : " ");
    }
  }

  private String pick(String[] from) {
    return from[random.nextInt(from.length)];
  }
}
