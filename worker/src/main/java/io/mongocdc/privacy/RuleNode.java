package io.mongocdc.privacy;

import io.mongocdc.workflows.model.FieldRules;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of a collection's rule paths, compiled: what a rule does to the field that ends a path
 * here, and the levels below by field name ({@code *}: any name). A field can match several nodes
 * ({@code customer.*.email} and {@code customer.home.email}); the strongest action wins: exclude
 * over keep over hash over going deeper, so an outer rule wins over one inside the value it acts on,
 * and a value is hashed once however many hash rules reach it.
 */
final class RuleNode {

  /**
   * What happens to a value. {@code KEEP} is only a rewrite's: the rows it rewrites hold hashes
   * there already (written under an earlier hash rule), which an added rule reaching the same value
   * must not hash again.
   */
  enum Action { HASH, KEEP, EXCLUDE }

  /** No node: a field no rule reaches. */
  static final RuleNode[] NONE = {};

  private Action action;
  private final Map<String, RuleNode> children = new LinkedHashMap<>();
  private RuleNode anyChild;
  /** The children's names as UTF-8 and the children, for matching names without decoding them. */
  private byte[][] childNames;
  private RuleNode[] childNodes;
  /** Bit n set when some child's name has n bytes (n below 64): most fields are told apart by it alone. */
  private long childNameLengths;
  /** Whether a child's name has 64 bytes or more, which {@link #childNameLengths} cannot say. */
  private boolean longChildName;
  /**
   * Each child with {@link #anyChild}, what a field of that name reaches when both match, made once;
   * null when this node has no {@code *} child.
   */
  private RuleNode[][] childNodesWithAny;
  /** This node alone, the common answer of {@link #match}, made once. */
  private final RuleNode[] alone = {this};

  /**
   * @param hashedAlready paths whose values are hashes already (see {@link Action#KEEP}): left as
   *     they are, unless excluded
   */
  static RuleNode compile(FieldRules rules, List<String> hashedAlready) {
    RuleNode root = new RuleNode();
    rules.exclude().forEach(path -> root.add(FieldRules.segments(path), 0, Action.EXCLUDE));
    rules.hash().forEach(path -> root.add(FieldRules.segments(path), 0, Action.HASH));
    hashedAlready.forEach(path -> root.add(FieldRules.segments(path), 0, Action.KEEP));
    root.freeze();
    return root;
  }

  private void freeze() {
    childNames = new byte[children.size()][];
    childNodes = new RuleNode[children.size()];
    childNodesWithAny = anyChild == null ? null : new RuleNode[children.size()][];
    int i = 0;
    for (Map.Entry<String, RuleNode> child : children.entrySet()) {
      childNames[i] = child.getKey().getBytes(StandardCharsets.UTF_8);
      if (childNames[i].length < Long.SIZE) {
        childNameLengths |= 1L << childNames[i].length;
      } else {
        longChildName = true;
      }
      childNodes[i] = child.getValue();
      if (anyChild != null) {
        childNodesWithAny[i] = new RuleNode[] {child.getValue(), anyChild};
      }
      i++;
      child.getValue().freeze();
    }
    if (anyChild != null) {
      anyChild.freeze();
    }
  }

  private void add(List<String> segments, int i, Action rule) {
    if (i == segments.size()) {
      action = action == null || rule.compareTo(action) > 0 ? rule : action;
      return;
    }
    String segment = segments.get(i);
    RuleNode child;
    if (segment.equals(FieldRules.ANY_FIELD)) {
      child = anyChild == null ? (anyChild = new RuleNode()) : anyChild;
    } else {
      child = children.computeIfAbsent(segment, s -> new RuleNode());
    }
    child.add(segments, i + 1, rule);
  }

  Action action() {
    return action;
  }

  /**
   * The nodes the field whose UTF-8 name is {@code b[from, to)} reaches from {@code nodes}; empty when
   * none. Arrays, not lists: this runs for every field the rules lead into, and calls through one
   * list type stay cheap only while no other type has been seen there.
   */
  static RuleNode[] match(RuleNode[] nodes, byte[] b, int from, int to) {
    if (nodes.length == 1) {
      RuleNode node = nodes[0];
      int named = node.named(b, from, to);
      if (node.anyChild == null) {
        return named < 0 ? NONE : node.childNodes[named].alone;
      }
      return named < 0 ? node.anyChild.alone : node.childNodesWithAny[named];
    }
    RuleNode[] matched = NONE;
    for (RuleNode node : nodes) {
      int named = node.named(b, from, to);
      if (named >= 0) {
        matched = with(matched, node.childNodes[named]);
      }
      if (node.anyChild != null) {
        matched = with(matched, node.anyChild);
      }
    }
    return matched;
  }

  /** {@code first}'s nodes, then {@code second}'s. */
  static RuleNode[] concat(RuleNode[] first, RuleNode[] second) {
    RuleNode[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }

  private static RuleNode[] with(RuleNode[] nodes, RuleNode node) {
    if (nodes.length == 0) {
      return node.alone;
    }
    RuleNode[] more = Arrays.copyOf(nodes, nodes.length + 1);
    more[nodes.length] = node;
    return more;
  }

  /** The index of the child named {@code b[from, to)}; -1 if none. */
  private int named(byte[] b, int from, int to) {
    int length = to - from;
    if (length < Long.SIZE ? (childNameLengths & 1L << length) == 0 : !longChildName) {
      return -1;
    }
    for (int i = 0; i < childNames.length; i++) {
      byte[] name = childNames[i];
      if (name.length == length && Element.startsWith(b, from, name)) {
        return i;
      }
    }
    return -1;
  }

  /** The strongest action of {@code nodes} (the last of {@link Action}'s order); null when they only lead deeper. */
  static Action strongest(RuleNode[] nodes) {
    if (nodes.length == 1) {
      return nodes[0].action;
    }
    Action strongest = null;
    for (RuleNode node : nodes) {
      if (node.action != null && (strongest == null || node.action.compareTo(strongest) > 0)) {
        strongest = node.action;
      }
    }
    return strongest;
  }
}
