package io.mongocdc.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/** Field rules on raw BSON: what each kind of path removes or hashes, and what it leaves byte for byte. */
class FieldRedactorTest {

  private static final HashKey KEY = HashKey.of("0123456789abcdef0123456789abcdef", "test");

  private static RawBsonDocument raw(String json) {
    return RawBsonDocument.parse(json);
  }

  private static BsonDocument apply(FieldRules rules, String json) {
    return FieldRedactor.of(rules, KEY).document(raw(json)).decode(new org.bson.codecs.BsonDocumentCodec());
  }

  private static FieldRules exclude(String... paths) {
    return new FieldRules(List.of(paths), List.of());
  }

  private static FieldRules hash(String... paths) {
    return new FieldRules(List.of(), List.of(paths));
  }

  @Test
  void excludeRemovesTopLevelNestedAndThroughArraysAndLeavesTheRest() {
    BsonDocument out = apply(exclude("email", "customer.address", "items.secret"),
        "{_id: 1, email: 'a@example.com', customer: {name: 'Zoë', address: {city: 'Zürich'}},"
            + " items: [{sku: 'x', secret: 1}, {sku: 'y', secret: 2}, 7, [{secret: 3, keep: 4}]], n: 5}");
    assertEquals(BsonDocument.parse("{_id: 1, customer: {name: 'Zoë'}, items: [{sku: 'x'}, {sku: 'y'}, 7,"
        + " [{keep: 4}]], n: 5}"), out);
  }

  @Test
  void aWildcardStandsForAnyOneFieldName() {
    BsonDocument out = apply(exclude("customer.*.email"),
        "{_id: 1, customer: {home: {email: 'h@example.com', tel: 1}, work: {email: 'w@example.com'}, email: 'top'}}");
    assertEquals(BsonDocument.parse("{_id: 1, customer: {home: {tel: 1}, work: {}, email: 'top'}}"), out);
  }

  @Test
  void theTopLevelIdIsNeverTouchedButANestedOneIs() {
    BsonDocument out = apply(exclude("*"), "{_id: {email: 'x'}, a: 1, b: {_id: 2}}");
    assertEquals(BsonDocument.parse("{_id: {email: 'x'}}"), out);
    assertEquals(BsonDocument.parse("{_id: 1, b: {}}"), apply(exclude("b._id"), "{_id: 1, b: {_id: 2}}"));
  }

  @Test
  void aDocumentNoRuleReachesIsCopiedByteForByte() {
    RawBsonDocument in = raw("{_id: 1, a: {b: [1, 2, {c: 'd'}]}, e: {$numberDecimal: '1.50'}}");
    RawBsonDocument out = FieldRedactor.of(exclude("x.y"), KEY).document(in);
    assertEquals(in, out);
    assertEquals(in.getByteBuffer().remaining(), out.getByteBuffer().remaining());
  }

  @Test
  void aHashIs64HexCharactersEqualForEqualValuesAndKeyed() {
    BsonDocument a = apply(hash("customer.email"), "{_id: 1, customer: {email: 'same@example.com'}}");
    BsonDocument b = apply(hash("customer.email"), "{_id: 2, customer: {email: 'same@example.com'}}");
    BsonDocument c = apply(hash("customer.email"), "{_id: 3, customer: {email: 'other@example.com'}}");
    String hashA = a.getDocument("customer").getString("email").getValue();
    assertTrue(hashA.matches("[0-9a-f]{64}"), hashA);
    assertEquals(hashA, b.getDocument("customer").getString("email").getValue());
    assertNotEquals(hashA, c.getDocument("customer").getString("email").getValue());
    String otherKey = FieldRedactor.of(hash("customer.email"), HashKey.of("another key of 32 characters....", "t"))
        .document(raw("{_id: 1, customer: {email: 'same@example.com'}}")).getDocument("customer")
        .getString("email").getValue();
    assertNotEquals(hashA, otherKey);
  }

  @Test
  void aHashIsTheHmacOfTheValueAsTheOneFieldDocumentV() throws Exception {
    String hashed = apply(hash("email"), "{_id: 1, email: 'a@example.com'}").getString("email").getValue();
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec("0123456789abcdef0123456789abcdef".getBytes(), "HmacSHA256"));
    byte[] single = FieldRedactor.bytesOf(new RawBsonDocument(new BsonDocument("v", new org.bson.BsonString(
        "a@example.com")), new org.bson.codecs.BsonDocumentCodec()));
    assertEquals(java.util.HexFormat.of().formatHex(mac.doFinal(single)), hashed);
  }

  @Test
  void valuesJsonCannotTellApartHashAlike() {
    // An int64 that fits int32 comes back from a row's relaxed JSON as an int32; field order is not kept by jsonb.
    assertEquals(apply(hash("n"), "{_id: 1, n: {$numberLong: '5'}}"), apply(hash("n"), "{_id: 1, n: 5}"));
    assertEquals(apply(hash("a"), "{_id: 1, a: {x: 1, y: [2, {q: 1, p: 2}]}}"),
        apply(hash("a"), "{_id: 1, a: {y: [{$numberLong: '2'}, {p: 2, q: 1}], x: {$numberLong: '1'}}}"));
    assertNotEquals(apply(hash("a"), "{_id: 1, a: [1, 2]}"), apply(hash("a"), "{_id: 1, a: [2, 1]}"));
    assertNotEquals(apply(hash("n"), "{_id: 1, n: 5}"), apply(hash("n"), "{_id: 1, n: '5'}"));
  }

  @Test
  void anOuterRuleWinsOverOneInsideTheValueItActsOn() {
    assertEquals(BsonDocument.parse("{_id: 1}"), apply(new FieldRules(List.of("c"), List.of("c.email")),
        "{_id: 1, c: {email: 'x'}}"));
    BsonDocument hashedWhole = apply(new FieldRules(List.of("c.email"), List.of("c")), "{_id: 1, c: {email: 'x'}}");
    assertTrue(hashedWhole.getString("c").getValue().matches("[0-9a-f]{64}"), hashedWhole.toJson());
  }

  @Test
  void updatedFieldsAreRedactedByTheirDottedPaths() {
    FieldRedactor redactor = FieldRedactor.of(new FieldRules(List.of("customer.address"),
        List.of("customer.email", "items.email")), KEY);
    RawBsonDocument description = raw("{updatedFields: {'customer.address.city': 'Bern', 'customer.email': 'a@example.com',"
        + " 'customer': {email: 'b@example.com', address: {city: 'Genf'}, name: 'n'}, 'items.3.email': 'c@example.com',"
        + " 'items.3': {email: 'd@example.com', sku: 's'}, status: 'paid', 'customer.name': 'm'},"
        + " removedFields: ['customer.address'], truncatedArrays: []}");
    BsonDocument out = redactor.updateDescription(description).decode(new org.bson.codecs.BsonDocumentCodec());
    BsonDocument updated = out.getDocument("updatedFields");
    assertFalse(updated.containsKey("customer.address.city"), out.toJson());
    assertTrue(updated.getString("customer.email").getValue().matches("[0-9a-f]{64}"), out.toJson());
    assertEquals(apply(new FieldRules(List.of("customer.address"), List.of("customer.email")),
        "{_id: 0, customer: {email: 'b@example.com', address: {city: 'Genf'}, name: 'n'}}").get("customer"),
        updated.get("customer"));
    assertTrue(updated.getString("items.3.email").getValue().matches("[0-9a-f]{64}"), out.toJson());
    assertTrue(updated.getDocument("items.3").getString("email").getValue().matches("[0-9a-f]{64}"), out.toJson());
    assertEquals("paid", updated.getString("status").getValue());
    assertEquals("m", updated.getString("customer.name").getValue());
    assertEquals(description.get("removedFields"), out.get("removedFields"));
    assertFalse(out.toJson().contains("example.com"), out.toJson());
  }

  @Test
  void aPartOfAHashedValueIsLeftOutOfUpdatedFields() {
    FieldRedactor redactor = FieldRedactor.of(hash("customer"), KEY);
    BsonDocument out = redactor.updateDescription(raw("{updatedFields: {'customer.email': 'a@example.com'}}"))
        .decode(new org.bson.codecs.BsonDocumentCodec());
    assertEquals(BsonDocument.parse("{updatedFields: {}}"), out);
  }

  /**
   * Issue 47, finding 11: a field literally named {@code user.email} (MongoDB 5.0+ allows dots in
   * names) was kept in clear in documents, while an update's {@code updatedFields}, whose names are
   * dotted paths and cannot tell such a field from {@code user}'s {@code email}, hashed it. A dotted
   * name is matched as the path it spells in both, so the rule acts alike wherever the value is.
   */
  @Test
  void aFieldNamedWithADotIsMatchedAsThePathItSpellsInDocumentsAsInUpdatedFields() {
    FieldRules rules = new FieldRules(List.of("user.secret"), List.of("user.email", "*.phone", "card"));
    FieldRedactor redactor = FieldRedactor.of(rules, KEY);
    BsonDocument out = apply(rules, "{_id: 1, 'user.email': 'a@example.com', 'user.secret': 's', 'x.phone': '1',"
        + " 'card.number': '4111', user: {email: 'b@example.com'}, 'user.name': 'n', 'a.b': 'kept'}");
    BsonDocument updated = redactor.updateDescription(raw("{updatedFields: {'user.email': 'a@example.com',"
        + " 'user.secret': 's', 'x.phone': '1', 'user.name': 'n'}}")).decode(new org.bson.codecs.BsonDocumentCodec())
        .getDocument("updatedFields");
    assertTrue(out.getString("user.email").getValue().matches("[0-9a-f]{64}"), out.toJson());
    assertEquals(out.get("user.email"), updated.get("user.email"), "hashed alike in a document and an update");
    assertEquals(out.get("x.phone"), updated.get("x.phone"));
    assertTrue(out.getString("x.phone").getValue().matches("[0-9a-f]{64}"), out.toJson());
    assertFalse(out.containsKey("user.secret"), out.toJson());
    assertFalse(updated.containsKey("user.secret"), updated.toJson());
    assertTrue(out.getString("card.number").getValue().matches("[0-9a-f]{64}"), "inside a hashed path: " + out.toJson());
    assertEquals("n", out.getString("user.name").getValue());
    assertEquals("n", updated.getString("user.name").getValue());
    assertEquals("kept", out.getString("a.b").getValue());
    assertTrue(out.getDocument("user").getString("email").getValue().matches("[0-9a-f]{64}"), out.toJson());
    assertFalse(out.toJson().contains("example.com") || out.toJson().contains("4111"), out.toJson());
  }

  /**
   * Issue 47, finding 11: a row's JSON holds ill-formed UTF-8 as U+FFFD, NUL as U+2400 and (in
   * jsonb) -0.0 as 0.0, and a rewrite hashes what it reads there; the stream hashes such values as
   * that JSON gives them back, so both hash alike.
   */
  @Test
  void textAndNumbersHashAsARowsJsonGivesThemBack() {
    assertEquals(apply(hash("n"), "{_id: 1, n: 0.0}"), apply(hash("n"), "{_id: 1, n: -0.0}"));
    assertEquals(apply(hash("n"), "{_id: 1, n: {a: 0.0}}"), apply(hash("n"), "{_id: 1, n: {a: -0.0}}"));
    assertNotEquals(apply(hash("n"), "{_id: 1, n: 0.0}"), apply(hash("n"), "{_id: 1, n: 0}"));
    BsonDocument withNul = FieldRedactor.of(hash("s", "d"), KEY).document(new RawBsonDocument(new BsonDocument("_id",
        new org.bson.BsonInt32(1)).append("s", new org.bson.BsonString("a\0b")).append("d", new BsonDocument("t",
        new org.bson.BsonString("c\0"))), new org.bson.codecs.BsonDocumentCodec())).decode(new org.bson.codecs.BsonDocumentCodec());
    assertEquals(apply(hash("s", "d"), "{_id: 1, s: 'a\u2400b', d: {t: 'c\u2400'}}"), withNul);
    // "x" then the ill-formed byte 0xFF then "y", as a raw string value of field s.
    byte[] illFormed = {22, 0, 0, 0, 2, '_', 'i', 'd', 0, 2, 0, 0, 0, 'a', 0, 2, 's', 0, 4, 0, 0, 0, 'x', (byte) 0xFF, 'y', 0, 0};
    illFormed[0] = (byte) illFormed.length;
    BsonDocument fromBytes = FieldRedactor.of(hash("s"), KEY).document(new RawBsonDocument(illFormed))
        .decode(new org.bson.codecs.BsonDocumentCodec());
    assertEquals(apply(hash("s"), "{_id: 'a', s: 'x\ufffdy'}"), fromBytes);
    assertNotEquals(apply(hash("s"), "{_id: 'a', s: 'xy'}"), fromBytes);
  }

  /**
   * Issue 47, finding 4: a rewrite given the paths its rows hold hashes at leaves those values as
   * they are, even where an added rule reaches them too, and hashes the rest; an added exclude
   * still removes them.
   */
  @Test
  void aRewriteLeavesTheValuesHashedAlreadyAndHashesTheRest() {
    String hashedEmail = apply(hash("c.email"), "{_id: 1, c: {email: 'a@example.com'}}").getDocument("c")
        .getString("email").getValue();
    BsonDocument stream = apply(hash("c.email", "c.*"), "{_id: 1, c: {email: 'a@example.com', phone: '1'}}");
    BsonDocument rewritten = FieldRedactor.of(hash("c.*"), KEY, List.of("c.email")).document(
        raw("{_id: 1, c: {email: '" + hashedEmail + "', phone: '1'}}")).decode(new org.bson.codecs.BsonDocumentCodec());
    assertEquals(stream, rewritten);
    assertEquals(BsonDocument.parse("{_id: 1, c: {}}"), FieldRedactor.of(exclude("c.*"), KEY, List.of("c.email"))
        .document(raw("{_id: 1, c: {email: '" + hashedEmail + "'}}")).decode(new org.bson.codecs.BsonDocumentCodec()));
  }

  @Test
  void aChangeEventHasItsCollectionsRulesAppliedToEveryDocumentItCarries() {
    MirrorRedaction redaction = MirrorRedaction.of(new FieldRuleSettings(Map.of("orders",
        new FieldRules(List.of("address"), List.of("email")))), KEY);
    RawBsonDocument event = raw("{_id: {_data: '82'}, operationType: 'update', ns: {db: 'shop', coll: 'orders'},"
        + " documentKey: {_id: 1, email: 'k@example.com'}, fullDocument: {_id: 1, email: 'a@example.com', address: 'x'},"
        + " fullDocumentBeforeChange: {_id: 1, email: 'b@example.com', address: 'y'},"
        + " updateDescription: {updatedFields: {email: 'a@example.com', address: 'x'}, removedFields: []}}");
    RawBsonDocument out = redaction.changeEvent(event);
    assertFalse(out.toJson().contains("example.com"), out.toJson());
    assertFalse(out.toJson().contains("address"), out.toJson());
    assertEquals(event.get("_id"), out.get("_id"));
    assertEquals(1, out.getDocument("documentKey").getInt32("_id").getValue());
    RawBsonDocument other = raw("{_id: {_data: '83'}, operationType: 'insert', ns: {db: 'shop', coll: 'users'},"
        + " documentKey: {_id: 1}, fullDocument: {_id: 1, email: 'a@example.com'}}");
    assertEquals(other, redaction.changeEvent(other), "another collection's events are left as they are");
  }

  @Test
  void eachCollectionGetsItsOwnRulesByItsWholeNameNotAPrefix() {
    MirrorRedaction redaction = MirrorRedaction.of(new FieldRuleSettings(Map.of("orders", exclude("email"),
        "orders_archive", exclude("address"), "é", exclude("email"))), KEY);
    String doc = ", documentKey: {_id: 1}, fullDocument: {_id: 1, email: 'a@example.com', address: 'x'}}";
    RawBsonDocument archived = redaction.changeEvent(raw("{_id: {_data: '82'}, ns: {db: 'shop', coll: 'orders_archive'}" + doc));
    assertEquals(BsonDocument.parse("{_id: 1, email: 'a@example.com'}"), archived.getDocument("fullDocument"));
    RawBsonDocument order = redaction.changeEvent(raw("{_id: {_data: '82'}, ns: {db: 'shop', coll: 'orders'}" + doc));
    assertEquals(BsonDocument.parse("{_id: 1, address: 'x'}"), order.getDocument("fullDocument"));
    RawBsonDocument accented = redaction.changeEvent(raw("{_id: {_data: '82'}, ns: {db: 'shop', coll: 'é'}" + doc));
    assertEquals(BsonDocument.parse("{_id: 1, address: 'x'}"), accented.getDocument("fullDocument"));
    RawBsonDocument prefix = raw("{_id: {_data: '82'}, ns: {db: 'shop', coll: 'order'}" + doc);
    assertEquals(prefix, redaction.changeEvent(prefix), "a collection without rules keeps its events as they are");
  }

  @Test
  void anEventThatIsASliceOfALargerArrayIsReadAtItsOffsetAndCopiedAlone() {
    MirrorRedaction redaction = MirrorRedaction.of(new FieldRuleSettings(Map.of("orders",
        new FieldRules(List.of("address"), List.of("email")))), KEY);
    RawBsonDocument alone = raw("{_id: {_data: '82'}, operationType: 'insert', ns: {db: 'shop', coll: 'orders'},"
        + " documentKey: {_id: 1}, fullDocument: {_id: 1, email: 'a@example.com', address: 'x'}}");
    byte[] bytes = FieldRedactor.bytesOf(alone);
    byte[] batch = new byte[1 << 20];
    System.arraycopy(bytes, 0, batch, 1_000, bytes.length);
    RawBsonDocument slice = new RawBsonDocument(batch, 1_000, bytes.length);

    RawBsonDocument out = redaction.changeEvent(slice);
    assertEquals(redaction.changeEvent(alone), out);
    assertTrue(out.getByteBuffer().asNIO().array().length < 4 * bytes.length, "a copy of the event, not of the array around it");
  }

  @Test
  void anEventWhoseCollectionCannotBeReadKeepsNoDocument() {
    MirrorRedaction redaction = MirrorRedaction.of(new FieldRuleSettings(Map.of("orders", exclude("email"))), KEY);
    RawBsonDocument out = redaction.changeEvent(raw("{_id: {_data: '82'}, operationType: 'insert', ns: 'not a document',"
        + " documentKey: {_id: 1}, fullDocument: {_id: 1, email: 'a@example.com', other: 'o@example.com'}}"));
    assertEquals(BsonDocument.parse("{_id: {_data: '82'}, operationType: 'insert', ns: 'not a document'}"),
        out.decode(new org.bson.codecs.BsonDocumentCodec()));
  }

  @Test
  void malformedBsonIsAnErrorNotAReadPastTheBytes() {
    byte[] bytes = FieldRedactor.bytesOf(raw("{_id: 1, customer: {email: 'a@example.com'}}")).clone();
    bytes[4 + 5 + 4 + 1 + 9] = 0x7E; // the sub-document's size says it runs past the document
    RawBsonDocument broken = new RawBsonDocument(bytes);
    byte[] badLength = FieldRedactor.bytesOf(raw("{_id: 1, s: 'abc'}")).clone();
    badLength[4 + 1 + 4 + 4 + 1 + 2] = 100;
    FieldRedactor redactor = FieldRedactor.of(exclude("customer.email", "s.x"), KEY);
    assertThrows(IllegalArgumentException.class, () -> redactor.document(broken));
    assertThrows(IllegalArgumentException.class, () -> redactor.document(new RawBsonDocument(badLength)));
  }

  @Test
  void aHashRuleWithoutAKeyNamesWhatToSet() {
    MissingHashKeyException missing = assertThrows(MissingHashKeyException.class, () -> MirrorRedaction.of(
        new FieldRuleSettings(Map.of("orders", hash("email"))), null));
    assertTrue(missing.getMessage().contains(HashKey.ENVIRONMENT_VARIABLE), missing.getMessage());
  }

  @Test
  void aKeyIsNeverShownAndTooShortOnesAreRefusedWithoutQuotingThem() {
    HashKey key = HashKey.of("secret-canary-0123456789", "test");
    assertFalse(key.toString().contains("canary"), key.toString());
    assertTrue(key.fingerprint().matches("[0-9a-f]{16}"), key.fingerprint());
    IllegalArgumentException shortKey = assertThrows(IllegalArgumentException.class,
        () -> HashKey.of("canary", HashKey.ENVIRONMENT_VARIABLE));
    assertFalse(shortKey.getMessage().contains("canary"), shortKey.getMessage());
  }
}
