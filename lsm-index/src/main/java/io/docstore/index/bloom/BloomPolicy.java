package io.docstore.index.bloom;

/** How the pager chooses which bloom pages stay resident when the budget is short. */
public enum BloomPolicy {
  /**
   * Keep the pages with the highest decayed request count x learnt probability of answering "no".
   */
  USEFULNESS,
  /** Keep a random choice of pages: the baseline usefulness is measured against. */
  RANDOM
}
