/**
 * Development tooling, outside the product: the embedded mode of {@code mongo-cdc dev} and its
 * cluster host, and (in {@code devtools.generator}) the load generator, which registers the
 * {@code generator:} source scheme with the wiring ({@link
 * io.mongocdc.devtools.GeneratorSourceScheme}).
 */
package io.mongocdc.devtools;
