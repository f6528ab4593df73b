//! The QGIS layer style of the schedule (`schedule.qml`, written beside `schedule.geojson`, which QGIS then
//! opens styled): parcels filled by tier (a categorized renderer on the `tier` column), overdue parcels
//! outlined in dark red by a second symbol layer that is enabled only where `status` is `overdue`, and
//! parcel ids (`parcel_id`) labelled at large scales only (1:5,000 and closer).
//!
//! [`schedule_qml`] returns the style as text, so a writer can also store it in a GeoPackage's
//! `layer_styles` table.

use super::svg::escape;
use crate::report::map::Rgba;

/// The columns the style reads; all are columns of `schedule.csv`.
pub const STYLE_FIELDS: [&str; 3] = ["tier", "status", "parcel_id"];

/// Labels show from this scale (1:N) inwards.
pub const LABEL_MAX_SCALE_DENOMINATOR: u32 = 5_000;

/// One category of the renderer: a tier value, its legend label and fill.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// The `tier` value.
    pub value: String,
    /// The legend text.
    pub label: String,
    /// The fill colour.
    pub fill: Rgba,
}

fn colour(c: Rgba) -> String {
    format!("{},{},{},{}", c.0, c.1, c.2, c.3)
}

/// A `<Option name=.. type="QString" value=..>` line.
fn option(name: &str, value: &str) -> String {
    format!("<Option name=\"{name}\" type=\"QString\" value=\"{}\"/>", escape(value))
}

/// The fill symbol of one category: the fill with a thin grey outline, then a heavy dark red outline drawn
/// only for overdue parcels.
fn symbol(index: usize, fill: Rgba) -> String {
    let overdue = escape("\"status\" = 'overdue'");
    format!(
        r#"      <symbol type="fill" name="{index}" alpha="1" clip_to_extent="1" force_rhr="0">
        <layer class="SimpleFill" enabled="1" pass="0" locked="0">
          <Option type="Map">
            {color}
            {outline_color}
            {outline_style}
            {outline_width}
            {outline_width_unit}
            {style}
          </Option>
        </layer>
        <layer class="SimpleLine" enabled="1" pass="1" locked="0">
          <Option type="Map">
            {line_color}
            {line_style}
            {line_width}
            {line_width_unit}
          </Option>
          <data_defined_properties>
            <Option type="Map">
              <Option name="name" type="QString" value=""/>
              <Option name="properties" type="Map">
                <Option name="enabled" type="Map">
                  <Option name="active" type="bool" value="true"/>
                  <Option name="expression" type="QString" value="{overdue}"/>
                  <Option name="type" type="int" value="3"/>
                </Option>
              </Option>
              <Option name="type" type="QString" value="collection"/>
            </Option>
          </data_defined_properties>
        </layer>
      </symbol>
"#,
        color = option("color", &colour(fill)),
        outline_color = option("outline_color", "64,64,64,160"),
        outline_style = option("outline_style", "solid"),
        outline_width = option("outline_width", "0.15"),
        outline_width_unit = option("outline_width_unit", "MM"),
        style = option("style", "solid"),
        line_color = option("line_color", "103,0,13,255"),
        line_style = option("line_style", "solid"),
        line_width = option("line_width", "0.7"),
        line_width_unit = option("line_width_unit", "MM"),
    )
}

/// The style of the schedule layer, as QGIS layer style XML (`.qml`), with one category per entry of
/// `categories` (in legend order) and a grey one for any other tier value.
pub fn schedule_qml(categories: &[Category]) -> String {
    let mut cats = String::new();
    let mut symbols = String::new();
    for (i, c) in categories.iter().enumerate() {
        cats.push_str(&format!(
            "      <category render=\"true\" symbol=\"{i}\" value=\"{}\" label=\"{}\"/>\n",
            escape(&c.value),
            escape(&c.label)
        ));
        symbols.push_str(&symbol(i, c.fill));
    }
    let other = categories.len();
    cats.push_str(&format!(
        "      <category render=\"true\" symbol=\"{other}\" value=\"\" label=\"Other\"/>\n"
    ));
    symbols.push_str(&symbol(other, Rgba::hex(0xD9D9D9)));
    format!(
        r#"<!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
<qgis version="3.28.0" styleCategories="Symbology|Labeling" labelsEnabled="1">
  <renderer-v2 type="categorizedSymbol" attr="tier" symbollevels="0" enableorderby="0" forceraster="0" referencescale="-1">
    <categories>
{cats}    </categories>
    <symbols>
{symbols}    </symbols>
    <rotation/>
    <sizescale/>
  </renderer-v2>
  <labeling type="simple">
    <settings calloutType="simple">
      <text-style fieldName="parcel_id" isExpression="0" fontFamily="Arial" fontSize="8" fontSizeUnit="Point" textColor="20,20,20,255" textOpacity="1" fontWeight="50" fontItalic="0" namedStyle="Regular" multilineHeight="1" allowHtml="0" capitalization="0">
        <text-buffer bufferDraw="1" bufferSize="0.7" bufferSizeUnits="MM" bufferColor="255,255,255,255" bufferOpacity="0.8" bufferJoinStyle="128" bufferNoFill="1"/>
      </text-style>
      <text-format wrapChar="" multilineAlign="1" formatNumbers="0" decimals="3" plussign="0" reverseDirectionSymbol="0" leftDirectionSymbol="&lt;" rightDirectionSymbol="&gt;" placeDirectionSymbol="0" addDirectionSymbol="0"/>
      <placement placement="1" placementFlags="10" centroidWhole="0" centroidInside="1" fitInPolygonOnly="0" priority="5" dist="0" distUnits="MM" offsetType="0" xOffset="0" yOffset="0" offsetUnits="MM" quadOffset="4" rotationAngle="0" repeatDistance="0" repeatDistanceUnits="MM" overrunDistance="0" overrunDistanceUnit="MM"/>
      <rendering scaleVisibility="1" scaleMin="1" scaleMax="{max_scale}" obstacle="1" obstacleType="1" obstacleFactor="1" displayAll="0" upsidedownLabels="0" labelPerPart="0" mergeLines="0" minFeatureSize="0" limitNumLabels="0" maxNumLabels="2000" fontLimitPixelSize="0" fontMinPixelSize="3" fontMaxPixelSize="10000" zIndex="0" drawLabels="1"/>
    </settings>
  </labeling>
  <layerGeometryType>2</layerGeometryType>
</qgis>
"#,
        max_scale = LABEL_MAX_SCALE_DENOMINATOR,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_are_escaped_and_numbered_with_their_symbols() {
        let qml = schedule_qml(&[
            Category { value: "lakefront".into(), label: "Lakefront".into(), fill: Rgba::hex(0x0072B2) },
            Category { value: "a<b".into(), label: "A & B".into(), fill: Rgba::hex(0x009E73) },
        ]);
        assert!(qml.contains(r#"<category render="true" symbol="0" value="lakefront" label="Lakefront"/>"#));
        assert!(qml.contains(r#"value="a&lt;b" label="A &amp; B""#));
        assert!(qml.contains(r#"<Option name="color" type="QString" value="0,114,178,255"/>"#));
        assert_eq!(qml.matches("<symbol type=\"fill\"").count(), 3, "two tiers and the rest");
        assert!(qml.contains("&quot;status&quot; = &apos;overdue&apos;"));
    }
}
