//! Random samples of random images through random samplers: every footprint's weights (border
//! included) add up to 1, every tap lies inside its level, on a level the view has, and reads
//! texel 0 on the axes the image does not have; a linear sample never reads more than 16 taps;
//! filtering a constant image gives that constant back.

use proptest::prelude::*;
use sim_rop::sampler::{AddressMode, BorderColor, Filter, MipmapMode, Sampler, filter};
use sim_rop::{Aspect, Format, Texel};

fn filter_mode() -> impl Strategy<Value = Filter> {
    prop::sample::select(Filter::ALL.to_vec())
}

fn address_mode() -> impl Strategy<Value = AddressMode> {
    prop::sample::select(AddressMode::ALL.to_vec())
}

fn sampler() -> impl Strategy<Value = Sampler> {
    (
        (filter_mode(), filter_mode(), prop::sample::select(MipmapMode::ALL.to_vec())),
        [address_mode(), address_mode(), address_mode()],
        (-2.0f32..2.0, -1.0f32..6.0, -1.0f32..16.0),
        prop::sample::select(BorderColor::ALL.to_vec()),
    )
        .prop_map(|((mag_filter, min_filter, mipmap_mode), address_mode, (mip_lod_bias, min_lod, max_lod), border_color)| Sampler {
            mag_filter,
            min_filter,
            mipmap_mode,
            address_mode,
            mip_lod_bias,
            min_lod,
            max_lod,
            border_color,
        })
}

/// A coordinate: mostly near the image, sometimes far outside it, sometimes not finite.
fn coordinate() -> impl Strategy<Value = f32> {
    prop_oneof![
        8 => -0.25f32..1.25,
        2 => -1e4f32..1e4,
        1 => prop::num::f32::ANY,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn footprints_weigh_one_and_stay_inside_their_levels(
        s in sampler(),
        dims in 1usize..=3,
        extent in [1u32..300, 1u32..300, 1u32..40],
        levels in 1u32..10,
        coords in [coordinate(), coordinate(), coordinate()],
        lod in prop_oneof![4 => -2.0f32..12.0, 1 => prop::num::f32::ANY],
    ) {
        let fp = s.footprint(dims, extent, levels, coords, lod);
        prop_assert!(fp.taps.len() <= 16);
        prop_assert!(fp.border_weight >= 0.0);
        let mut sum = fp.border_weight;
        for t in &fp.taps {
            prop_assert!(t.level < levels, "{t:?}");
            prop_assert!((0.0..=1.0).contains(&t.weight), "{t:?}");
            sum += t.weight;
            for (axis, &side) in extent.iter().enumerate() {
                let size = (side >> t.level).max(1);
                if axis < dims {
                    prop_assert!(t.texel[axis] < size, "{t:?} outside level of {size} on axis {axis}");
                } else {
                    prop_assert_eq!(t.texel[axis], 0);
                }
            }
        }
        prop_assert!((sum - 1.0).abs() < 1e-5, "weights add up to {sum}: {fp:?}");
        if !s.address_mode[..dims].contains(&AddressMode::ClampToBorder) {
            prop_assert_eq!(fp.border_weight, 0.0);
        }

        // A constant image whose border is that constant filters to it.
        let c = [0.25f32, 0.5, 0.75, 1.0];
        let texels = vec![Texel::Float(c); fp.taps.len()];
        let got = filter(&fp, &texels, c.map(f32::to_bits)).map(f32::from_bits);
        for k in 0..4 {
            prop_assert!((got[k] - c[k]).abs() < 1e-5, "{got:?}");
        }
        // Integer texels read one tap (or the border) unchanged.
        let ints: Vec<_> = (0..fp.taps.len() as u32).map(|n| Texel::Uint([n, 0, 0, 1])).collect();
        let border = s.border_words_for(Format::R32_UINT, Aspect::Color);
        let got = filter(&fp, &ints, border);
        prop_assert!(got == border || (got[0] as usize) < fp.taps.len());
    }
}
