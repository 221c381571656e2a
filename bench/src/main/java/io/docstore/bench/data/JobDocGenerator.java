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

  private final SplittableRandom random;

  public JobDocGenerator(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /**
   * The JSON document for {@code id} at {@code version}; same inputs, same bytes, whatever the
   * generator's state.
   */
  public static byte[] document(long id, int version) {
    return new JobDocGenerator(id * 31 + version).next(id);
  }

  /** A new document for {@code id}, about 1.1 KB of UTF-8 JSON. */
  public byte[] next(long id) {
    StringBuilder sb = new StringBuilder(1280);
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
    int target = 900 + random.nextInt(200);
    while (sb.length() < target) {
      sb.append(pick(WORDS));
      sb.append(random.nextInt(12) == 0 ? ". " : " ");
    }
    sb.append("\"}");
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private String pick(String[] from) {
    return from[random.nextInt(from.length)];
  }
}
