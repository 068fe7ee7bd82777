/**
 * RLVE's environments (rlve-gym on PyPI) as envforge packages: the catalogue reader, the
 * package generator, the level probe and the importer behind `envforge import rlve`.
 * @module
 */
export * from "./rlve-catalogue.js";
export * from "./rlve-package.js";
export * from "./rlve-probe.js";
export * from "./rlve-import.js";
