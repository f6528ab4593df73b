//! Geometry on projected coordinates: exact planar primitives ([`planar`]), polygon validity ([`validity`]),
//! buffer polygons ([`buffer`]), contour lines ([`contour`]) and the R-trees classification searches ([`index`]). Nothing here knows of
//! parcels, layers or law.

pub mod buffer;
pub mod contour;
pub mod index;
pub mod planar;
pub mod validity;
